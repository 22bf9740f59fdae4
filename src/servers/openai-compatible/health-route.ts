import type { Route } from './route.js';

/** `GET /health`: an empty 200 while the server runs (vLLM's probe, open without the API key). */
export const health: Route = () => ({ status: 200, body: {} });
