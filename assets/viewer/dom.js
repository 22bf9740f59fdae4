// Building DOM nodes without innerHTML: every piece of text from a row goes through textContent,
// so a message that contains markup is shown as text, never parsed.

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * h('a', {href: '#/', class: 'x', onclick: fn}, 'text', child) → an HTML element.
 * Props starting with "on" become listeners, `dataset` and `style` objects are merged,
 * null/undefined/false props are skipped; children may be strings, numbers, nodes, arrays or null.
 */
export function h(tag, props = {}, ...children) {
  return build(document.createElement(tag), props, children);
}

/** Same as h, in the SVG namespace. */
export function s(tag, props = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), props, children);
}

function build(node, props, children) {
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key === 'style' && typeof value === 'object') for (const [name, v] of Object.entries(value)) node.style.setProperty(name, v);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces a node's children. */
export function replace(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** A block telling what went wrong, announced to screen readers. */
export function errorBox(error) {
  return h('div', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error));
}

/**
 * Mounts a page drawn whole from one fetch: "Loading…" under its heading, then `view(data)`, or the
 * heading and an error box. A fetch that ends after a newer one started, or after dispose, draws
 * nothing, so a slow answer never replaces a newer page. Returns the route's {refresh, dispose}.
 */
export function wholePage(root, heading, fetch, view) {
  let generation = 0;

  async function load() {
    const mine = ++generation;
    try {
      const data = await fetch();
      if (mine === generation) replace(root, view(data));
    } catch (error) {
      if (mine === generation) replace(root, h('h1', {}, heading), errorBox(error));
    }
  }

  replace(root, h('h1', {}, heading), h('p', { class: 'loading' }, 'Loading…'));
  load();
  return { refresh: load, dispose: () => void ++generation };
}
