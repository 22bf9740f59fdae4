import { PolicyError } from '../../core/errors/policy-error.js';
import type { BackendRecipe } from '../backend-recipe.js';
import { mapOpenAiFinishReason } from '../map-finish-reason.js';
import type { PolicyRequest } from '../policy.js';
import { replyList } from '../sampled-reply.js';
import { readSglangGenerateResponse } from './read-sglang-generate-response.fast.js';
import { SglangGenerateResponse } from './sglang-generate-wire-types.js';

function convertToSglangGenerateRequest(request: PolicyRequest): Record<string, unknown> {
  const { sampling } = request;
  return {
    input_ids: request.prompt_token_ids,
    sampling_params: {
      max_new_tokens: sampling.max_tokens,
      temperature: sampling.greedy ? 0 : sampling.temperature,
      top_p: sampling.greedy ? 1 : sampling.top_p,
      ...(sampling.top_k && !sampling.greedy ? { top_k: sampling.top_k } : {}),
      ...(sampling.seed === undefined ? {} : { sampling_seed: sampling.seed }),
      stop: request.stop_strings,
      stop_token_ids: request.stop_token_ids,
      no_stop_trim: true,
      skip_special_tokens: false,
    },
    return_logprob: true,
    logprob_start_len: -1,
    // Costs no logprobs: SGLang echoes the ids it tokenized (`GenerateReqInput.return_prompt_token_ids`).
    return_prompt_token_ids: true,
    rid: request.session_id,
  };
}

/** SGLang's native token-in endpoint: ids and logprobs from `meta_info.output_token_logprobs` (as slime and OpenRLHF read them). */
export const sglangGenerateBackend: BackendRecipe<SglangGenerateResponse> = {
  name: 'sglang-generate',
  path: '/generate',
  returnsTokenIds: true,
  toWire: convertToSglangGenerateRequest,
  responseSchema: SglangGenerateResponse,
  readResponse: readSglangGenerateResponse,
  sampledReply(wire) {
    const entries = wire.meta_info.output_token_logprobs;
    if (!entries) return undefined;
    const path = 'meta_info.output_token_logprobs';
    return {
      tokenIds: replyList(
        entries.map(([, id]) => id),
        path,
        (index) => `${path}[${index}][1]`,
      ),
      logprobs: replyList(
        entries.map(([logprob]) => logprob),
        path,
        (index) => `${path}[${index}][0]`,
      ),
      ...(wire.output_ids ? { tokenIdsAgain: replyList(wire.output_ids, 'output_ids') } : {}),
      text: wire.text,
      textPath: 'text',
      textIs: 'decoded',
    };
  },
  fromWire(wire) {
    const entries = wire.meta_info.output_token_logprobs;
    if (!entries) throw new PolicyError('sglang-generate: the server returned no output_token_logprobs (send return_logprob)');
    return {
      token_ids: entries.map(([, id]) => id),
      logprobs: entries.map(([logprob]) => logprob),
      text: wire.text,
      finish_reason: mapOpenAiFinishReason(wire.meta_info.finish_reason?.type),
      usage: { prompt_tokens: wire.meta_info.prompt_tokens, completion_tokens: wire.meta_info.completion_tokens },
      // At the top of the answer, beside `output_ids` (python/sglang/srt/managers/tokenizer_manager.py puts
      // `out["prompt_token_ids"]` there); checked against the ids sent. Older versions return none.
      ...(wire.prompt_token_ids ? { prompt_token_ids: wire.prompt_token_ids } : {}),
      ...versionOf(wire.meta_info.weight_version),
    };
  },
};

/** SGLang's weight version as a turn's `policy_version` when it is a count; a name such as "default" or "step-100" is not guessed at. */
function versionOf(weightVersion: string | number | null | undefined): { policy_version?: number } {
  const version = typeof weightVersion === 'string' && /^\d{1,15}$/.test(weightVersion) ? Number(weightVersion) : weightVersion;
  return typeof version === 'number' && Number.isSafeInteger(version) && version >= 0 ? { policy_version: version } : {};
}
