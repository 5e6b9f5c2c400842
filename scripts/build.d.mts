/** Types for build.mjs (plain JavaScript, so it runs before anything is compiled). */
export declare const entry: string;
export declare const bundleEntry: string;
export declare function isStale(root?: string): boolean;
export declare function build(reason?: string): Promise<boolean>;
export declare function bundle(outdir?: string): Promise<void>;
