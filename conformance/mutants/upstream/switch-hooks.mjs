// Module load hook of switch.mjs: the one target module's source is replaced
// by its instrumented version; every other module loads untouched.

let target;

/** @param {{url: string, source: string}} data */
export function initialize(data) {
  target = data;
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (target === undefined || url !== target.url) return loaded;
  return { ...loaded, source: target.source };
}
