/**
 * node:http through require, not `import`. On Node ≥ 22 an ES import of node:http builds its module
 * namespace from every export, and node:http exports WebSocket, CloseEvent and MessageEvent as lazy
 * getters that load Node's whole bundled fetch (undici); require hands over the same exports object
 * without reading them. Node 20 has no such exports; this costs nothing there.
 */
import { createRequire } from 'node:module';

export const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
