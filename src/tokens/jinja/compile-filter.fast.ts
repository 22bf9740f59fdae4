// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { AstNode, CallExpressionNode, IdentifierNode } from './ast-nodes.fast.js';
import { compileArguments } from './compile-arguments.fast.js';
import type { CompileExpression } from './compiled-closures.fast.js';
import { applyCallFilter, applyFilter } from './filters.fast.js';
import type { Scope } from './scope.fast.js';
import { unsupported } from './unsupported-construct-error.fast.js';

/** A filter applied to an evaluated operand: `value|name` or `value|name(args)`, and `{% filter %}` blocks. */
export type ApplyFilter = (operand: unknown, scope: Scope) => unknown;

export function compileFilter(node: AstNode, expression: CompileExpression): ApplyFilter {
  if (node.type === 'Identifier') {
    const name = (node as IdentifierNode).value;
    return (operand) => applyFilter(name, operand);
  }
  if (node.type !== 'CallExpression' || (node as CallExpressionNode).callee.type !== 'Identifier') return unsupported(`the filter node ${node.type}`);
  const { callee, args } = node as CallExpressionNode;
  const name = (callee as IdentifierNode).value;
  const argsAreStringLiterals = args.every((arg) => arg.type === 'StringLiteral');
  const { positional, keyword } = compileArguments(args, expression);
  return (operand, scope) => applyCallFilter(name, operand, positional(scope), keyword?.(scope) ?? new Map(), argsAreStringLiterals);
}
