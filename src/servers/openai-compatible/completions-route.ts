import { RequestRejectedError } from '../http-server/request-rejected-error.js';
import { completionTokens, policyVersion, tokenLabel, usage } from './answer-fields.js';
import type { Generation } from './generator.js';
import { checkNoSpecialTokensAdded, checkNoTopLogprobs, checkStreamOptions, checkTextFits, checkTokenIds, parseBody } from './request-checks.js';
import { CompletionRequest } from './request-wire-types.js';
import { responseId, unixSeconds } from './response-id.js';
import type { Route } from './route.js';
import { runOptions } from './run-options.js';
import { generations, sampleChoices } from './sample-choices.js';
import { checkModel } from './served-model.js';
import { completionChunks } from './stream-chunks.js';
import type { TokenPiece } from './token-pieces.js';
import { completionDefaults, refuseNonDefault, samplingDefaults } from './unsupported-parameters.js';

/** `best_of` samples that many and returns the `n` likeliest; this server returns every choice it samples, so it serves only best_of equal to n. */
function checkBestOf(bestOf: number | undefined, n: number): void {
  if (bestOf === undefined || bestOf === n) return;
  throw new RequestRejectedError(
    400,
    `best_of ${bestOf} is not supported: this server returns every choice it samples, so best_of must equal n (${n}) or be left out`,
    { param: 'best_of', code: 'unsupported_parameter' },
  );
}

/** `POST /v1/completions`: text or token prompts, one or a batch, with vLLM's `return_token_ids`. */
export const completions: Route = async (context, body, signal) => {
  const request = parseBody(CompletionRequest, body);
  checkModel(context, request.model);
  refuseNonDefault(samplingDefaults, request);
  refuseNonDefault(completionDefaults, request);
  checkBestOf(request.best_of, request.n);
  checkNoSpecialTokensAdded(request.add_special_tokens);
  checkStreamOptions(request);
  checkNoTopLogprobs('logprobs', request.logprobs ?? 0);
  if (request.echo && request.logprobs !== undefined) {
    throw new RequestRejectedError(400, "echo with logprobs would need the prompt's logprobs, which this server does not score", {
      param: 'echo',
      code: 'unsupported_parameter',
    });
  }
  const prompts = batchOf(request.prompt);
  const batched = prompts === (request.prompt as unknown);
  const promptIds = prompts.map((prompt, i) => {
    const field = batched ? `prompt[${i}]` : 'prompt';
    if (typeof prompt === 'string') checkTextFits(context, `the ${field}`, prompt, request.max_tokens);
    else checkTokenIds(context, field, prompt);
    return typeof prompt === 'string' ? context.tokenizer.encode(prompt) : prompt;
  });
  const steps = sampleChoices(context, promptIds, runOptions(request, request.max_tokens, request.include_stop_str_in_output), request.n, signal);
  const promptOf = (index: number) => Math.floor(index / request.n);
  const echo = (index: number) =>
    !request.echo
      ? ''
      : typeof prompts[promptOf(index)] === 'string'
        ? (prompts[promptOf(index)] as string)
        : context.tokenizer.decode(promptIds[promptOf(index)]!);
  const finish = (generation: Generation) => ({ finish_reason: generation.finish, stop_reason: generation.stopReason, ...policyVersion(generation) });
  const logprobs = (ids: readonly number[], values: readonly number[]) => ({
    tokens: ids.map((id) => tokenLabel(context, id, request.return_tokens_as_token_ids)),
    token_logprobs: values,
    top_logprobs: null,
    text_offset: [],
  });
  const promptTokens = promptIds.reduce((sum, ids) => sum + ids.length, 0);
  const head = { id: responseId('cmpl'), created: unixSeconds(), model: context.model };
  if (request.stream) {
    const plan = {
      echo,
      promptTokenIds: (index: number) => (request.return_token_ids ? promptIds[promptOf(index)] : undefined),
      finish,
      logprobs:
        request.logprobs === undefined
          ? undefined
          : (pieces: TokenPiece[]) =>
              logprobs(
                pieces.map((piece) => piece.tokenId),
                pieces.map((piece) => piece.logprob),
              ),
      tokenIds: request.return_token_ids ?? false,
      usage: request.stream_options?.include_usage ? (finished: Generation[]) => usage(promptTokens, completionTokens(finished)) : undefined,
    };
    return { status: 200, events: completionChunks(head, steps, plan) };
  }
  const generated = await generations(steps);
  const choices = generated.map((generation, index) => ({
    index,
    text: echo(index) + generation.text,
    ...(request.return_token_ids ? { token_ids: generation.tokenIds, prompt_token_ids: promptIds[promptOf(index)] } : {}),
    logprobs: request.logprobs === undefined ? null : logprobs(generation.tokenIds, generation.logprobs),
    ...finish(generation),
  }));
  return { status: 200, body: { ...head, object: 'text_completion', choices, usage: usage(promptTokens, completionTokens(generated)) } };
};

/** A completions prompt as a list: one text or id list (an empty list too) is a batch of one, a new array; a batch is returned as sent. */
function batchOf(prompt: string | number[] | string[] | number[][]): (string | number[])[] {
  if (typeof prompt === 'string' || prompt.length === 0 || typeof prompt[0] === 'number') return [prompt as string | number[]];
  return prompt as (string | number[])[];
}
