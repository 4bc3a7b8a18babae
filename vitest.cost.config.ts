import { mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

// The suite as `npm test` runs it, each file's CPU and wall time written down (test/helpers/file-cost.ts).
export default mergeConfig(base, { test: { setupFiles: ['test/helpers/file-cost.ts'] } });
