import { describe, expect, it } from 'vitest';
import { readConfig } from './config.js';

describe('configuration from the environment', () => {
  it('stops start-up on a priority for the end-of-turn model process that is not a nice value from 0 to 19', () => {
    expect(() => readConfig({ EOT_PROCESS_NICE: 'low' })).toThrow(/EOT_PROCESS_NICE/);
    expect(() => readConfig({ EOT_PROCESS_NICE: '-5' })).toThrow(/EOT_PROCESS_NICE/);
    expect(() => readConfig({ EOT_PROCESS_NICE: '19' })).not.toThrow();
  });
});
