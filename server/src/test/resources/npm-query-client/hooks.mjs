// The package (0.0.1-alpha07, the version npm serves here) ships ES module syntax with extensionless relative
// imports under "type": "commonjs"; Node 20 will not load it as it is. This loader hook makes Node read its files
// as modules and resolve those imports: a work-around for the client's packaging, not for anything sluice does.
const PKG = '/@neo4j-labs/experimental-query-api-wrapper/lib/';
export async function resolve(spec, ctx, next) {
  if (ctx.parentURL && ctx.parentURL.includes(PKG) && (spec.startsWith('./') || spec.startsWith('../')) && !spec.endsWith('.js')) {
    try { return await next(spec + '.js', ctx); } catch { return await next(spec + '/index.js', ctx); }
  }
  return next(spec, ctx);
}
export async function load(url, ctx, next) {
  if (url.includes(PKG)) { const r = await next(url, { ...ctx, format: 'module' }); return { ...r, format: 'module' }; }
  return next(url, ctx);
}
