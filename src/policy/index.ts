export { PolicyResult, type Policy, type PolicyRequest } from './policy.js';
