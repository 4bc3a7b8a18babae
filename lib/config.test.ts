import { describe, expect, it } from 'vitest';
import { readConfig } from './config.js';

describe('configuration from the environment', () => {
  it('stops start-up on a priority for the end-of-turn model process that is not a nice value from 0 to 19', () => {
    expect(() => readConfig({ EOT_PROCESS_NICE: 'low' })).toThrow(/EOT_PROCESS_NICE/);
    expect(() => readConfig({ EOT_PROCESS_NICE: '-5' })).toThrow(/EOT_PROCESS_NICE/);
    expect(() => readConfig({ EOT_PROCESS_NICE: '19' })).not.toThrow();
  });

  it("gives the agent worker its settings, with each one's default when unset or empty", () => {
    expect(readConfig({}).agent).toEqual({
      idleProcesses: 2,
      healthPort: 8081,
      healthHost: '127.0.0.1',
      pocketsphinxBin: 'pocketsphinx_continuous',
      eotProcessNice: 15,
      drainTimeoutMs: 600_000,
    });
    expect(
      readConfig({
        LIVEKIT_IDLE_PROCESSES: '0',
        AGENT_HEALTH_PORT: '9000',
        AGENT_HEALTH_HOST: '0.0.0.0',
        POCKETSPHINX_BIN: '/opt/ps/bin/decode',
        EOT_PROCESS_NICE: '',
        SHUTDOWN_DRAIN_S: '30',
      }).agent,
    ).toEqual({ idleProcesses: 0, healthPort: 9000, healthHost: '0.0.0.0', pocketsphinxBin: '/opt/ps/bin/decode', eotProcessNice: 15, drainTimeoutMs: 30_000 });
  });

  it('stops start-up on a worker setting out of range, naming the variable', () => {
    expect(() => readConfig({ LIVEKIT_IDLE_PROCESSES: 'two' })).toThrow(/^invalid environment: LIVEKIT_IDLE_PROCESSES: /);
    expect(() => readConfig({ LIVEKIT_IDLE_PROCESSES: '-1' })).toThrow(/LIVEKIT_IDLE_PROCESSES/);
    // The framework reads 0 as its own default port, so 0 cannot mean "any free port" here.
    expect(() => readConfig({ AGENT_HEALTH_PORT: '0' })).toThrow(/AGENT_HEALTH_PORT/);
    expect(() => readConfig({ AGENT_HEALTH_PORT: '70000' })).toThrow(/AGENT_HEALTH_PORT/);
    expect(() => readConfig({ SHUTDOWN_DRAIN_S: '-1' })).toThrow(/SHUTDOWN_DRAIN_S/);
    expect(() => readConfig({ SHUTDOWN_DRAIN_S: '3601' })).toThrow(/SHUTDOWN_DRAIN_S/);
  });

  it('reads every vendor key and endpoint by its name, an empty one as unset', () => {
    const { vendors } = readConfig({
      DEEPGRAM_API_KEY: 'dg',
      ELEVENLABS_BASE_URL: 'https://eu.elevenlabs.example',
      OPENAI_API_KEY: '',
      // Not vendors: a setting of our own, and another program's variable.
      LIVEKIT_API_KEY: 'devkey',
      LIVEKIT_URL: 'ws://127.0.0.1:7880',
      LIVEKIT_API_SECRET: 'secret',
      NEXT_PUBLIC_BASE_URL: '/app',
    });
    expect(vendors).toEqual({ apiKeys: { deepgram: 'dg' }, baseUrls: { elevenlabs: 'https://eu.elevenlabs.example' }, privateHosts: [] });
  });

  it('reads the private vendor hosts the operator allows, and stops start-up on an entry that is not a host', () => {
    expect(readConfig({ VENDOR_PRIVATE_HOSTS: '127.0.0.1:11434, llm.internal' }).vendors.privateHosts).toEqual([
      { host: '127.0.0.1', port: 11434 },
      { host: 'llm.internal', port: null },
    ]);
    expect(() => readConfig({ VENDOR_PRIVATE_HOSTS: 'http://127.0.0.1:11434' })).toThrow(/^invalid environment: VENDOR_PRIVATE_HOSTS: not a host or host:port/);
  });

  it("stops start-up on a vendor endpoint that is not a URL, in one line naming it with the schema's other problems", () => {
    const read = () => readConfig({ CUSTOM_BASE_URL: 'localhost:11434/v1', PORT: 'eighty' });
    expect(read).toThrow(/^invalid environment: PORT: .*; CUSTOM_BASE_URL: /);
    expect(() => readConfig({ CUSTOM_BASE_URL: 'http://127.0.0.1:11434/v1' })).not.toThrow();
  });

  it("exports traces only when an OTLP endpoint is set, to OpenTelemetry's endpoint for traces, and never with OTEL_TRACES_EXPORTER=none", () => {
    expect(readConfig({}).tracing).toBeUndefined();
    expect(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      endpoint: 'http://collector:4318/v1/traces',
      serviceName: undefined,
      includeContent: false,
    });
    // The traces' own variable is used as given, and wins over the base one.
    expect(
      readConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b.example/otlp/traces',
        OTEL_SERVICE_NAME: 'voice-eu',
      }).tracing,
    ).toMatchObject({ endpoint: 'https://b.example/otlp/traces', serviceName: 'voice-eu' });
    expect(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined();
    expect(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', TRACES_INCLUDE_CONTENT: 'true' }).tracing?.includeContent).toBe(true);
    expect(() => readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});
