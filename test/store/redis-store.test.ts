import { describe } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { createStores } from '../../src/store/create-stores.js';
import { randomPrefix, storeBehaviourSuite } from './store-suite.js';

const redisUrl = process.env.REDIS_URL;

describe.skipIf(!redisUrl)('with REDIS_URL', () => {
  const namespacePrefix = randomPrefix();
  storeBehaviourSuite('redis', () =>
    createStores({ url: redisUrl!, sessionTtlMs: 60_000, logger: silentLogger, namespacePrefix }),
  );
});
