/** Types for build-web.mjs (plain JavaScript, so it runs before anything is compiled). */
export declare function buildWeb(options?: { outdir?: string; minify?: boolean }): Promise<void>;
