export type { Policy, PolicyRequest, StreamedToken, StreamingPolicy } from './policy.js';
export type { BackendRecipe } from './backend-recipe.js';
export { replyList, type ReplyList, type SampledReply } from './sampled-reply.js';
export { RemotePolicy, type RemotePolicyOptions, type ServedModel } from './remote-policy.js';
export {
  createPolicy,
  parsePolicySpec,
  PolicySpec,
  RequestSettings,
  policyKinds,
  type PolicyKind,
  type CreatePolicyOptions,
  type CreatedPolicy,
} from './create-policy.js';
export { JsonClient, type JsonClientOptions } from '../http-client/json-client.js';
export { Router, type Replica, type RouterEvent, type RouterOptions } from '../http-client/router/router.js';
export { routingPolicies, type Routing } from '../http-client/router/routing.js';
export { backoffDelay, defaultRetryOptions, type RetryOptions } from '../http-client/router/backoff.js';
export { RetryBudget, defaultRetryBudget, type RetryBudgetOptions } from '../http-client/router/retry-budget.js';
export { vllmCompletionsBackend } from './vllm-completions/vllm-completions-backend.js';
export { chatCompletionsBackend, type ChatBackendOptions } from './chat-completions/chat-completions-backend.js';
export { sglangGenerateBackend } from './sglang-generate/sglang-generate-backend.js';
export { openAiBackend } from './openai/openai-backend.js';
export { EmbeddedPolicy, embeddedModelDirectory, type WeightsUpdate } from './embedded/embedded-policy.js';
export { GptModel } from './embedded/gpt-model.js';
export { GptConfig } from './embedded/gpt-config.js';
