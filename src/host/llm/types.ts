/** Chat messages in the OpenAI format the LLM servers speak. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool call as it goes back to the server inside an assistant message. */
export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** An OpenAI function tool as offered to the model. */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** One tool call put together from its streamed fragments. */
export interface AssembledToolCall {
  index: number;
  /** The id the model gave; empty when it gave none (the loop then makes one). */
  id: string;
  name: string;
  /** The arguments text exactly as streamed: it may not be valid JSON. */
  arguments: string;
}

export type LlmEvent =
  | { type: 'text'; text: string }
  /** `cutOff`: the reply hit its token or time cap, and says so (the text that came is the reply). */
  | { type: 'done'; toolCalls: AssembledToolCall[]; finishReason: string | null; cutOff?: string; usage?: { promptTokens: number; completionTokens: number } };

export interface LlmRequest {
  messages: ChatMessage[];
  tools?: FunctionTool[];
}

/**
 * A streaming chat model. The iterable yields text deltas as they arrive,
 * then one `done`. Failures are AppError: LLM_UNREACHABLE (names the URL),
 * LLM_HTTP_ERROR, LLM_STREAM_BROKEN (the stream stopped before its end; the
 * text already yielded stands), LLM_CANCELLED.
 */
export interface Llm {
  stream(request: LlmRequest, options?: { signal?: AbortSignal }): AsyncIterable<LlmEvent>;
  /**
   * Work a first request would otherwise do, done ahead of it (at start-up):
   * loading the HTTP client, connecting, finding the model. Optional; a
   * failure only means the first request does that work itself.
   */
  warmUp?(options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * One light request that a serving server answers (GET /models): resolves
   * when it does, rejects with an AppError that says in words why not.
   * Optional; the LLM server watch uses it while the server is missing.
   */
  probe?(options: { signal?: AbortSignal; timeoutMs: number }): Promise<void>;
}
