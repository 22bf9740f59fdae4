// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { CallExpressionNode, IdentifierNode, MemberExpressionNode } from './ast-nodes.fast.js';
import { compileArguments } from './compile-arguments.fast.js';
import type { CompileExpression, Evaluate } from './compiled-closures.fast.js';
import { callMethod, callValue } from './members.fast.js';
import type { Scope } from './scope.fast.js';
import type { Kwargs } from './template-values.fast.js';

/** `f(args)`, and `object.method(args)` dispatched by name without building a bound function. */
export function compileCall(node: CallExpressionNode, expression: CompileExpression): Evaluate {
  const { positional, keyword } = compileArguments(node.args, expression);
  const keywords = (scope: Scope): Kwargs => {
    const values = keyword?.(scope);
    return values && values.size > 0 ? values : undefined;
  };
  const callee = node.callee as MemberExpressionNode;
  if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
    const object = expression(callee.object);
    const name = (callee.property as IdentifierNode).value;
    return (scope) => {
      const args = positional(scope);
      const kwargs = keywords(scope);
      return callMethod(object(scope), name, args, kwargs, scope);
    };
  }
  const evaluateCallee = expression(node.callee);
  return (scope) => {
    const args = positional(scope);
    const kwargs = keywords(scope);
    return callValue(evaluateCallee(scope), args, kwargs, scope);
  };
}
