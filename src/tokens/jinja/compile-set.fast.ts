// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { AstNode, IdentifierNode, LiteralNode, MemberExpressionNode, SetNode } from './ast-nodes.fast.js';
import { bindable, bindableTupleNames } from './bindable-name.fast.js';
import type { Evaluate, Render, StatementCompiler } from './compiled-closures.fast.js';
import { isArrayKind, kindOf, Namespace } from './template-values.fast.js';
import { unsupported } from './unsupported-construct-error.fast.js';

/** `{% set name = value %}`, `{% set a, b = value %}`, `{% set ns.attr = value %}` and block sets. */
export function compileSet(node: SetNode, compile: StatementCompiler): Render {
  const value: Evaluate = node.value ? compile.expression(node.value) : compile.block(node.body);
  const assignee = node.assignee;
  if (assignee.type === 'Identifier') return setName(bindable((assignee as IdentifierNode).value), value);
  if (assignee.type === 'TupleLiteral') return setTuple(bindableTupleNames(assignee as LiteralNode<AstNode[]>), value);
  if (assignee.type === 'MemberExpression' && (assignee as MemberExpressionNode).property.type === 'Identifier') {
    return setAttribute(assignee as MemberExpressionNode, value, compile);
  }
  return unsupported(`assigning to ${assignee.type}`);
}

function setName(name: string, value: Evaluate): Render {
  return (scope) => {
    scope.assign(name, value(scope));
    return '';
  };
}

function setTuple(names: string[], value: Evaluate): Render {
  return (scope) => {
    const values = value(scope);
    if (!isArrayKind(kindOf(values))) throw new Error(`Cannot unpack non-iterable type in set: ${kindOf(values)}`);
    const items = values as unknown[];
    if (items.length !== names.length) throw new Error(`Too ${names.length > items.length ? 'few' : 'many'} items to unpack in set`);
    names.forEach((name, i) => scope.assign(name, items[i]));
    return '';
  };
}

/** Only a namespace's attributes can be assigned, as in the interpreter. */
function setAttribute(assignee: MemberExpressionNode, value: Evaluate, compile: StatementCompiler): Render {
  const object = compile.expression(assignee.object);
  const property = (assignee.property as IdentifierNode).value;
  return (scope) => {
    const assigned = value(scope);
    const target = object(scope);
    if (!(target instanceof Namespace)) throw new Error('cannot assign attribute on non-namespace object');
    target.entries.set(property, assigned);
    return '';
  };
}
