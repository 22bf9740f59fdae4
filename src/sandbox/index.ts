export { runSandboxed, type SandboxOptions, type SandboxRequest, UNSANDBOXED_WARNING } from './run-sandboxed.js';
export { SandboxPool } from './sandbox-pool.js';
export { SandboxLimits, type SandboxLimitsInput } from './sandbox-limits.js';
export { SandboxStatus, SandboxVerdict } from './sandbox-verdict.js';
export { SANDBOX_LANGUAGES, type SandboxLanguage } from './sandbox-runtime.js';
export { INSTALL_BUBBLEWRAP } from './sandbox-tools.js';
