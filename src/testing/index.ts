/// <reference types="node" preserve="true" />
// Kept in dist/testing/index.d.ts, as in dist/index.d.ts: see src/index.ts.
export { ScriptedPolicy, type Script, type ScriptedReply } from './scripted-policy.js';
export { ScriptedEnvironment, type ScriptedEnvironmentOptions } from './scripted-environment.js';
export { InferenceServer, type InferenceServerOptions, type RecordedRequest } from './inference-server/inference-server.js';
export { FaultQueue, type Fault } from './inference-server/faults.js';
export { seededWords, seededGenerator, type Responder, type SeededGeneratorOptions } from './inference-server/seeded-generation.js';
export type { Tokenization } from './inference-server/non-canonical-ids.js';
