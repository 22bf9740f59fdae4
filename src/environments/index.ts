export type { Environment, EnvironmentTurn, ObservationTokens, ResetResult } from './environment.js';
export { createBatchedEnvironment, type BatchedEnvironmentSpec } from './batched-environment.js';
export { mathEnvironment, type MathMetadata } from './math.js';
export { extractMathAnswer } from './math-answer.js';
export { areMathEquivalent, normalizeLatex } from './math-equivalence.js';
export { slidingPuzzleEnvironment, parseAction, type SlidingPuzzleMetadata } from './sliding-puzzle.js';
export { calculatorEnvironment, type CalculatorMetadata } from './calculator.js';
export {
  arithmeticEnvironment,
  arithmeticPrompt,
  generateArithmeticTasks,
  ARITHMETIC_FORMAT,
  CALCULATOR_TOOL,
  calculate,
  type CalculatorOutput,
  ArithmeticTask,
  type ArithmeticMetadata,
  type ArithmeticKind,
} from './arithmetic.js';
export { smallProductTasks, type SmallProductSplit } from './small-product-tasks.js';
export { builtinEnvironments, findEnvironment, type EnvironmentEntry } from './registry.js';
export { toolCallingEnvironment, type ToolEnvironmentSpec } from './tool-environment.js';
export {
  parseHermesToolCalls,
  hermesToolCallParser,
  toolCallParsers,
  findToolCallParser,
  toToolCall,
  type ToolCallParser,
  type ParsedTurn,
  type ParsedToolCall,
  type ToolCallBlock,
  type IdentifiedToolCallBlock,
} from './tool-call-parser.js';
export { sessionCounterEnvironment } from './session-counter.js';
export { codeEnvironment, type CodeMetadata, type CodeFields } from './code.js';
export { codeAgentEnvironment } from './code-agent.js';
export { CodeTask, type CodeEnvironmentOptions } from './code-task.js';
export { extractCode } from './extract-code.js';
export { UnitTests, type UnitTestVerdict } from './unit-tests.js';
export { gymnasiumEnvironment, type GymnasiumSpec, type GymnasiumStep } from './gymnasium-environment.js';
export {
  nemoGymResourcesEnvironment,
  type NemoGymResourcesOptions,
  type NemoGymServerEnvironment,
  type ResourcesEpisode,
} from './nemo-gym/resources-server-environment.js';
export { nemoGymGymnasiumEnvironment, type GymnasiumServerEpisode } from './nemo-gym/gymnasium-server-environment.js';
export { NemoGymServer, type NemoGymServerOptions, type ServerSession } from './nemo-gym/nemo-gym-server.js';
export { responseOutput, responseObject, type ResponseObject } from './nemo-gym/response-object.js';
export { withSetCookies, cookieHeaders, type Cookies } from './nemo-gym/cookie-jar.js';
