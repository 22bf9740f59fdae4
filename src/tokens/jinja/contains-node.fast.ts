// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { AstNode } from './ast-nodes.fast.js';

/** Whether any node below `root` satisfies `predicate` (ObjectLiteral keeps its entries in a Map). */
export function containsNode(root: unknown, predicate: (node: AstNode) => boolean): boolean {
  if (Array.isArray(root)) return root.some((item) => containsNode(item, predicate));
  if (root instanceof Map) return Array.from(root).some(([key, value]) => containsNode(key, predicate) || containsNode(value, predicate));
  if (typeof root !== 'object' || root === null || typeof (root as AstNode).type !== 'string') return false;
  if (predicate(root as AstNode)) return true;
  return Object.values(root).some((child) => containsNode(child, predicate));
}
