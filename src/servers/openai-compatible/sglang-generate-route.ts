import { checkTokenIds, parseBody } from './request-checks.js';
import { GenerateRequest } from './request-wire-types.js';
import type { Route } from './route.js';
import { stopList } from './run-options.js';
import { generateWhole } from './sampling.js';

/** SGLang's `POST /generate`: token ids in, `output_ids` and `meta_info` out. */
export const sglangGenerate: Route = async (context, body, signal) => {
  const { input_ids, sampling_params: params, return_logprob, return_prompt_token_ids } = parseBody(GenerateRequest, body);
  checkTokenIds(context, 'input_ids', input_ids);
  const generation = await generateWhole(
    context,
    input_ids,
    {
      maxTokens: params.max_new_tokens,
      seed: params.sampling_seed,
      temperature: params.temperature,
      topP: params.top_p,
      topK: params.top_k,
      stop: stopList(params.stop),
      stopTokenIds: params.stop_token_ids ?? [],
      includeStop: params.no_stop_trim ?? false,
      skipSpecial: params.skip_special_tokens ?? true,
    },
    signal,
  );
  const finishType = generation.finish === 'length' ? 'length' : 'stop';
  return {
    status: 200,
    body: {
      text: generation.text,
      output_ids: generation.tokenIds,
      ...(return_prompt_token_ids ? { prompt_token_ids: input_ids } : {}),
      meta_info: {
        id: 'gen-test',
        finish_reason: { type: finishType, ...(generation.stopReason === null ? {} : { matched: generation.stopReason }) },
        prompt_tokens: input_ids.length,
        completion_tokens: generation.tokenIds.length,
        ...(return_logprob ? { output_token_logprobs: generation.tokenIds.map((id, j) => [generation.logprobs[j], id, null]) } : {}),
        // SGLang's own field (a string: its versions are names); gymnast's backend reads a count back as the turn's `policy_version`.
        ...(generation.policyVersion === undefined ? {} : { weight_version: String(generation.policyVersion) }),
      },
    },
  };
};
