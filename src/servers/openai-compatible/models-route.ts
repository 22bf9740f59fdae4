import { RequestRejectedError } from '../http-server/request-rejected-error.js';
import type { Route } from './route.js';
import { modelCard } from './served-model.js';

/** `GET /v1/models`: the one served model's card. */
export const models: Route = (context) => ({ status: 200, body: { object: 'list', data: [modelCard(context, context.startedAt)] } });

/** `GET /v1/models/{id}`: the served model's card, or a 404 `model_not_found` (never answered for another name, even by the test double). */
export function model(id: string): Route {
  return (context) => {
    if (id !== context.model)
      throw new RequestRejectedError(404, `The model \`${id}\` does not exist. This server serves \`${context.model}\`.`, {
        param: 'model',
        code: 'model_not_found',
      });
    return { status: 200, body: modelCard(context, context.startedAt) };
  };
}
