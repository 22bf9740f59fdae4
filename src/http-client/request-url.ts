/**
 * The URL of `path` on the server at `baseUrl`: after the base's own path, before its query
 * (`http://host/v1?key=K` and `/completions` give `http://host/v1/completions?key=K`).
 */
export function requestUrl(baseUrl: string, path: string): string {
  const query = baseUrl.indexOf('?');
  return query < 0 ? `${baseUrl}${path}` : `${baseUrl.slice(0, query)}${withQuery(path, baseUrl.slice(query))}`;
}

/** `path` with `query` (`?a=1`, or empty) after it: joined by `&` when the path has a query of its own. */
export function withQuery(path: string, query: string): string {
  if (query === '') return path;
  return path.includes('?') ? `${path}&${query.slice(1)}` : `${path}${query}`;
}
