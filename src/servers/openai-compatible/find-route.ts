import { chatCompletions } from './chat-completions-route.js';
import { completions } from './completions-route.js';
import { detokenize } from './detokenize-route.js';
import { health } from './health-route.js';
import { model, models } from './models-route.js';
import { responses } from './responses-route.js';
import type { Route } from './route.js';
import { sglangGenerate } from './sglang-generate-route.js';
import { tokenize } from './tokenize-route.js';

/** The route for a method and path: one of `routes`, or the model card under `/v1/models/`. */
export function findRoute(method: string | undefined, path: string): Route | undefined {
  const exact = routes[`${method} ${path}`];
  if (exact) return exact;
  const prefix = '/v1/models/';
  return method === 'GET' && path.startsWith(prefix) && path.length > prefix.length ? model(decodeURIComponent(path.slice(prefix.length))) : undefined;
}

const routes: Record<string, Route> = {
  'GET /v1/models': models,
  'GET /health': health,
  'POST /v1/completions': completions,
  'POST /v1/chat/completions': chatCompletions,
  'POST /v1/responses': responses,
  'POST /generate': sglangGenerate,
  'POST /tokenize': tokenize,
  'POST /detokenize': detokenize,
};
