import { silentLogger } from '../../src/logger.js';
import { createStores } from '../../src/store/create-stores.js';
import { storeBehaviourSuite } from './store-suite.js';

storeBehaviourSuite('memory', () =>
  createStores({ url: 'memory://', sessionTtlMs: 60_000, logger: silentLogger }),
);
