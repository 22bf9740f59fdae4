// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { AstNode } from './ast-nodes.fast.js';
import type { Scope } from './scope.fast.js';

/** A compiled expression: its value in a scope. */
export type Evaluate = (scope: Scope) => unknown;

/** A compiled statement or block: the text it writes in a scope. */
export type Render = (scope: Scope) => string;

/** Compiles a child expression; handed to the parts of the compiler so they need not import each other. */
export type CompileExpression = (node: AstNode) => Evaluate;

/** What compiling a statement needs from the rest of the compiler. */
export interface StatementCompiler {
  expression: CompileExpression;
  block(nodes: AstNode[]): Render;
  /** Whether any loop may see `break`/`continue` (only then do loop bodies pay for a try/catch). */
  hasLoopControl: boolean;
}
