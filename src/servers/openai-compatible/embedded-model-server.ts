import { hermesToolCallParser } from '../../environments/tool-call-parser.js';
import type { EmbeddedPolicy } from '../../policy/embedded/embedded-policy.js';
import { JinjaChatTemplate, type HfTokenizer } from '../../tokens/index.js';
import type { ListenOptions } from '../http-server/http-server-core.js';
import { policyGenerator } from './generator.js';
import { OpenAiCompatibleServer } from './openai-compatible-server.js';
import { weightsRoutes } from './weights-routes.js';

/** The name the embedded model is served under. */
export const EMBEDDED_MODEL_NAME = 'gymnast-tiny-arith';

/**
 * The embedded model's context is 256 tokens, a few hundred bytes of JSON: 1 MiB is thousands of times
 * what a real request needs, while the server's general default (16 MiB) would let one request of
 * unknown characters cost seconds of encoding (its word-level tokenizer gives no bound to refuse by).
 */
export const EMBEDDED_MAX_BODY_BYTES = 1024 * 1024;

/**
 * The embedded model behind the OpenAI-compatible API (with vLLM's token fields), as `gymnast serve
 * model --embedded` serves it. It writes its calculator calls in Hermes / Qwen `<tool_call>` blocks, so
 * a chat request offering tools gets them back as `tool_calls` (vLLM's `--tool-call-parser hermes`).
 * A trainer hands it new weights with `POST /update_weights` and reads `GET /policy_version` (`weightsRoutes`).
 */
export function embeddedModelServer(
  policy: EmbeddedPolicy,
  options: ListenOptions & { maxBodyBytes?: number; apiKey?: string; updateDeadlineMs?: number },
): OpenAiCompatibleServer {
  const tokenizer = policy.tokenizer as HfTokenizer;
  return new OpenAiCompatibleServer({
    tokenizer,
    template: JinjaChatTemplate.fromConfig(tokenizer.config),
    generate: policyGenerator(policy, tokenizer),
    model: EMBEDDED_MODEL_NAME,
    maxModelLen: policy.maxModelLen,
    toolCallParser: hermesToolCallParser,
    extraRoutes: weightsRoutes(policy, options.updateDeadlineMs),
    maxBodyBytes: options.maxBodyBytes ?? EMBEDDED_MAX_BODY_BYTES,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
  });
}
