/** Node flags of every way the server is started (see server-flags.mjs). */
export declare const SERVER_NODE_FLAGS: readonly string[];
