/// <reference types="node" preserve="true" />
// Kept in dist/testing/index.d.ts, as in dist/index.d.ts: see src/index.ts.
export { ScriptedPolicy, type Script, type ScriptedReply } from './scripted-policy.js';
export { ScriptedEnvironment, type ScriptedEnvironmentOptions } from './scripted-environment.js';
export { InferenceServer, type InferenceServerOptions, type RecordedRequest } from './inference-server/inference-server.js';
export { FaultQueue, type Fault } from './inference-server/faults.js';
export { seededWords, seededGenerator, type Responder, type SeededGeneratorOptions } from './inference-server/seeded-generation.js';
export type { Tokenization } from './inference-server/non-canonical-ids.js';
export { startSimFleet, type StartSimFleetOptions, type StartedSimFleet } from './start-sim-fleet.js';
export { SimFleetClient } from './sim-fleet-client.js';
export { SimFleet, type SimFleetOptions, type Outage, type SimReplica } from '../servers/sim/sim-fleet.js';
export { SimEngine, type SimStep, type SimEngineState, type PauseMode } from '../servers/sim/sim-engine.js';
export { ScaledClock, type SimClock } from '../servers/sim/sim-clock.js';
export { VirtualClock } from '../servers/sim/virtual-clock.js';
export { SimProfile, readSimProfile } from '../servers/sim/sim-profile.js';
export { builtinProfiles, resolveSimProfile } from '../servers/sim/builtin-profiles.js';
export { correctWithProbability, type AnswerScript, type AnswerPrompt } from '../servers/sim/answer-script.js';
export { loadSimTokenizer, type SimTokenizer } from '../servers/sim/sim-tokenizer.js';
export type { ReplicaReport } from '../servers/sim/replica-report.js';
