export { ScriptedPolicy, type Script, type ScriptedReply } from './scripted-policy.js';
export { ScriptedEnvironment, type ScriptedEnvironmentOptions } from './scripted-environment.js';
