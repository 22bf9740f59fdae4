export { PolicyResult, type Policy, type PolicyRequest } from './policy.js';
export type { BackendRecipe } from './backend-recipe.js';
export { RemotePolicy, type RemotePolicyOptions } from './remote-policy.js';
export { JsonClient, type JsonClientOptions } from './http/json-client.js';
export { Router, type Replica, type RouterEvent, type RouterOptions } from './router/router.js';
export { backoffDelay, defaultRetryOptions, type RetryOptions } from './router/backoff.js';
export { vllmCompletionsBackend } from './vllm-completions/vllm-completions-backend.js';
export { chatCompletionsBackend, type ChatBackendOptions } from './chat-completions/chat-completions-backend.js';
export { sglangGenerateBackend } from './sglang-generate/sglang-generate-backend.js';
