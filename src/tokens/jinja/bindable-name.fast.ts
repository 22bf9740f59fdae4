// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { AstNode, IdentifierNode, LiteralNode } from './ast-nodes.fast.js';
import { unsupported } from './unsupported-construct-error.fast.js';

/** A name a template may bind; the rest would need the interpreter's per-Environment `namespace` or break the scope objects. */
export function bindable(name: string): string {
  return name === 'namespace' || name === '__proto__' ? unsupported(`binding the name ${name}`) : name;
}

/** The names of a tuple target (`{% set a, b = … %}`, `{% for k, v in … %}`), identifiers only. */
export function bindableTupleNames(tuple: LiteralNode<AstNode[]>): string[] {
  return tuple.value.map((item) => (item.type === 'Identifier' ? bindable((item as IdentifierNode).value) : unsupported('unpacking into a non-identifier')));
}
