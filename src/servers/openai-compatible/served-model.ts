import { RequestRejectedError } from '../http-server/request-rejected-error.js';

export interface ServedModel {
  /** The name listed on `/v1/models`. */
  model: string;
  /** Whether a request naming another model is served anyway (the test double stands in for whatever model its client is configured with). */
  answersAnyModel: boolean;
  maxModelLen: number;
  /** Where the model was loaded from (a folder or a hub name), listed as vLLM lists it; the name when not given. */
  root?: string | undefined;
}

/**
 * A request naming a model the server does not serve is a 404 `model_not_found`, as OpenAI and vLLM
 * answer it, rather than an answer from a different model. A request naming none is served: vLLM
 * allows leaving `model` out, and so do we.
 */
export function checkModel(served: ServedModel, model: string | undefined): void {
  if (model === undefined || model === served.model || served.answersAnyModel) return;
  throw new RequestRejectedError(404, `The model \`${model}\` does not exist. This server serves \`${served.model}\`.`, {
    param: 'model',
    code: 'model_not_found',
  });
}

/** The model as `/v1/models` lists it, with vLLM's `root` and `max_model_len`. */
export function modelCard(served: ServedModel, created: number) {
  return { id: served.model, object: 'model', created, owned_by: 'gymnast', root: served.root ?? served.model, max_model_len: served.maxModelLen };
}
