import type { voice } from '@livekit/agents';

// The session events the parts of a call listen to. Each part asks only for the events it needs, so it runs the same
// on an AgentSession and on a test's emitter, with no audio.

export interface SessionEventMap {
  [voice.AgentSessionEventTypes.AgentStateChanged]: voice.AgentStateChangedEvent;
  [voice.AgentSessionEventTypes.UserStateChanged]: voice.UserStateChangedEvent;
  [voice.AgentSessionEventTypes.UserInputTranscribed]: voice.UserInputTranscribedEvent;
  [voice.AgentSessionEventTypes.ConversationItemAdded]: voice.ConversationItemAddedEvent;
  [voice.AgentSessionEventTypes.FunctionToolsExecuted]: voice.FunctionToolsExecutedEvent;
  [voice.AgentSessionEventTypes.MetricsCollected]: voice.MetricsCollectedEvent;
  [voice.AgentSessionEventTypes.Error]: voice.ErrorEvent;
  [voice.AgentSessionEventTypes.Close]: voice.CloseEvent;
}

export type SessionEvent = keyof SessionEventMap;

export type SessionCallbacks = { [E in SessionEvent]: (ev: SessionEventMap[E]) => void };

export interface SessionEvents<K extends SessionEvent> {
  on<E extends K>(event: E, listener: SessionCallbacks[E]): unknown;
  off<E extends K>(event: E, listener: SessionCallbacks[E]): unknown;
}

/** Listens to `event` until the answered function is called. */
export function listen<K extends SessionEvent, E extends K>(session: SessionEvents<K>, event: E, listener: SessionCallbacks[E]): () => void {
  session.on(event, listener);
  return () => void session.off(event, listener);
}
