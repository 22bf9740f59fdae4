// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { LiteralNode, MemberExpressionNode, SliceExpressionNode } from './ast-nodes.fast.js';
import type { CompileExpression, Evaluate } from './compiled-closures.fast.js';
import { compileSlice } from './compile-slice.fast.js';
import { LoopInfo } from './loop-info.fast.js';
import { getMember } from './members.fast.js';
import { hasOwn } from './template-values.fast.js';

/** `object.name`, `object[key]` and `object[a:b]`. */
export function compileMember(node: MemberExpressionNode, expression: CompileExpression): Evaluate {
  const object = expression(node.object);
  if (node.computed) {
    if (node.property.type === 'SliceExpression') return compileSlice(object, node.property as SliceExpressionNode, expression);
    const property = expression(node.property);
    return (scope) => {
      const value = object(scope);
      return getMember(value, property(scope));
    };
  }
  const property = (node.property as LiteralNode<string | number>).value;
  if (typeof property !== 'string') return (scope) => getMember(object(scope), property);
  return (scope) => {
    const value = object(scope);
    // Fast path: an own key of a plain mapping (messages, tool calls, `loop`) is what getMember returns.
    if (typeof value === 'object' && value !== null && (value.constructor === Object || value instanceof LoopInfo) && hasOwn(value, property)) {
      return (value as Record<string, unknown>)[property];
    }
    return getMember(value, property);
  };
}
