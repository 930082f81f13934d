import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { AppError } from '../../errors/index.js';
import { LlmErrors } from './llm-errors.js';
import { ToolCallAssembler } from './tool-call-assembler.js';
import type { Llm, LlmEvent, LlmRequest } from './types.js';

export interface OpenAiLlmOptions {
  /** The OpenAI-compatible base URL, e.g. llama-server's `http://localhost:8181/v1`. */
  baseUrl: string;
  /** Empty or absent: the first model GET /models lists, asked once and kept. */
  model?: string;
  /** Default `OPENAI_API_KEY`, else 'none' (llama-server without --api-key takes anything). */
  apiKey?: string;
  /** Connecting and receiving the response headers. */
  requestTimeoutMs: number;
  /** From the request until the first text, tool call or finish reason (the prompt is read meanwhile). */
  firstTokenTimeoutMs?: number;
  /** After the first token, the longest silence between two chunks. */
  idleTimeoutMs?: number;
  /** The most tokens a reply may have: sent as `max_tokens`, so the server stops there (finish reason "length"). */
  maxReplyTokens?: number;
  /** The longest a reply may stream, from the request: past it the stream is stopped and the reply ends with what came. */
  maxReplyMs?: number;
  /** Extra top-level body fields the server accepts, e.g. {@link LLAMA_SERVER_NO_THINKING}. */
  extraBody?: Record<string, unknown>;
}

/** llama-server: render the chat template with thinking off (Qwen3 and the like). */
export const LLAMA_SERVER_NO_THINKING: Readonly<Record<string, unknown>> = Object.freeze({
  chat_template_kwargs: { enable_thinking: false },
});

type StopReason = { kind: 'cancelled'; reason: unknown } | { kind: 'first-token' } | { kind: 'idle' } | { kind: 'deadline' };

/** A streaming chat model behind any OpenAI-compatible server, through the `openai` SDK. */
export class OpenAiLlm implements Llm {
  private readonly client: OpenAI;
  private readonly errors: LlmErrors;
  private model: Promise<string> | undefined;
  private readonly configError: AppError | undefined;

  constructor(private readonly options: OpenAiLlmOptions) {
    const apiKey = options.apiKey || process.env.OPENAI_API_KEY || 'none';
    this.errors = new LlmErrors(options.baseUrl, apiKey);
    this.configError = this.errors.credentialsInUrl(options.baseUrl);
    this.client = new OpenAI({
      baseURL: this.errors.url,
      apiKey,
      // Retries would repeat a turn the user is waiting for; the caller decides.
      maxRetries: 0,
      timeout: options.requestTimeoutMs,
      // The SDK logs unparseable chunks (model output) to the console at its default level.
      logLevel: 'off',
      organization: null,
      project: null,
    });
    if (options.model) this.model = Promise.resolve(options.model);
  }

  /** The base URL as messages show it. */
  get url(): string {
    return this.errors.url;
  }

  /** The model in use: the configured one, or the first the server lists (asked once). */
  resolveModel(signal?: AbortSignal): Promise<string> {
    this.model ??= this.firstListedModel(signal).catch((error: unknown) => {
      // Not cached: the server may come up later.
      this.model = undefined;
      throw error;
    });
    return this.model;
  }

  /**
   * One GET /models, off the path of any turn: Node loads its HTTP client
   * (undici) on the first fetch, the SDK builds its request machinery, a
   * connection opens, and an unconfigured model is found and kept, about
   * 30-40 ms that a first turn otherwise waits for (bench host-turn). With
   * a configured model the list is asked for all the same and not used:
   * llama-server answers it from memory. Never rejects; a failure is not
   * kept: the first turn asks again.
   */
  async warmUp(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.configError !== undefined) return;
    try {
      if (this.model === undefined) await this.resolveModel(options.signal);
      else await this.client.models.list(options.signal ? { signal: options.signal } : undefined);
    } catch {
      // The server may not be up yet; the first turn finds out and says so.
    }
  }

  /** GET /models, nothing kept: whether the server serves now, for the server watch. */
  async probe(options: { signal?: AbortSignal; timeoutMs: number }): Promise<void> {
    if (this.configError !== undefined) throw this.configError;
    try {
      await this.client.models.list({ timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      throw this.errors.notServing(error, options.timeoutMs);
    }
  }

  async *stream(request: LlmRequest, options: { signal?: AbortSignal } = {}): AsyncGenerator<LlmEvent> {
    const guard = new StopGuard(options.signal);
    const stopError = (): AppError | undefined => {
      const stop = guard.reason;
      if (stop === undefined) return undefined;
      if (stop.kind === 'cancelled') return this.errors.cancelled(stop.reason);
      if (stop.kind === 'deadline') return undefined; // not an error: the reply ends with what came
      return stop.kind === 'first-token' ? this.errors.noFirstToken(this.options.firstTokenTimeoutMs ?? 0) : this.errors.stalled(this.options.idleTimeoutMs ?? 0);
    };
    try {
      if (this.configError !== undefined) throw this.configError;
      if (guard.cancelled()) throw stopError();
      let model: string;
      try {
        model = await guard.race(this.resolveModel());
      } catch (error) {
        throw stopError() ?? error;
      }
      guard.arm({ kind: 'first-token' }, this.options.firstTokenTimeoutMs);
      guard.deadline(this.options.maxReplyMs);

      const body: ChatCompletionCreateParamsStreaming = {
        ...this.options.extraBody,
        model,
        messages: request.messages,
        ...(request.tools !== undefined && request.tools.length > 0 ? { tools: request.tools } : {}),
        ...(this.options.maxReplyTokens === undefined ? {} : { max_tokens: this.options.maxReplyTokens }),
        stream: true,
        stream_options: { include_usage: true },
      };
      let chunks: AsyncIterable<ChatCompletionChunk>;
      try {
        chunks = await this.client.chat.completions.create(body, { signal: guard.signal });
      } catch (error) {
        throw stopError() ?? this.errors.request(error);
      }

      const assembler = new ToolCallAssembler();
      let finishReason: string | null = null;
      let usage: { promptTokens: number; completionTokens: number } | undefined;
      let started = false;
      try {
        for await (const chunk of chunks) {
          if (chunk.usage) usage = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
          const choice = chunk.choices?.[0];
          const delta = choice?.delta;
          started ||= Boolean(delta?.content || delta?.tool_calls?.length || choice?.finish_reason);
          // The silence timer runs only while waiting on the server, not while the caller holds an event.
          if (started) guard.disarm();
          if (delta?.content) yield { type: 'text', text: delta.content };
          assembler.add(delta?.tool_calls);
          if (choice?.finish_reason) finishReason = choice.finish_reason;
          if (started) guard.arm({ kind: 'idle' }, this.options.idleTimeoutMs);
        }
      } catch (error) {
        // After the finish reason only the usage and [DONE] can be lost (a drop, a
        // silence): the reply is whole. A cancellation still wins.
        if (!guard.pastDeadline() && (finishReason === null || guard.cancelled())) throw stopError() ?? this.errors.stream(error);
      }
      if (guard.pastDeadline()) {
        // What came is the reply; a tool call cut in half is not made.
        yield { type: 'done', toolCalls: [], finishReason: 'length', cutOff: `the reply was cut off after ${Math.round(this.options.maxReplyMs! / 1000)} s (max_reply_seconds)` };
        return;
      }
      // The SDK ends the iteration quietly when its signal aborts.
      if (finishReason === null || guard.cancelled()) throw stopError() ?? this.errors.unfinished();
      guard.complete();
      const cutOff = finishReason === 'length' && this.options.maxReplyTokens !== undefined ? { cutOff: `the reply was cut off at ${this.options.maxReplyTokens} tokens (max_reply_tokens)` } : {};
      yield { type: 'done', toolCalls: finishReason === 'length' ? [] : assembler.result(), finishReason, ...cutOff, ...(usage === undefined ? {} : { usage }) };
    } finally {
      guard.dispose();
    }
  }

  private async firstListedModel(signal?: AbortSignal): Promise<string> {
    let page;
    try {
      page = await this.client.models.list(signal ? { signal } : undefined);
    } catch (error) {
      throw this.errors.modelList(error);
    }
    const id = page.data[0]?.id;
    if (!id) throw this.errors.noModel();
    return id;
  }
}

/**
 * One request's stop switch: the caller's signal and the timeouts abort one
 * internal controller, and the first reason is the one kept.
 */
class StopGuard {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private completed = false;
  reason: StopReason | undefined;
  private readonly onAbort = (): void => this.stop({ kind: 'cancelled', reason: this.outer?.reason });

  constructor(private readonly outer: AbortSignal | undefined) {
    if (outer?.aborted) this.stop({ kind: 'cancelled', reason: outer.reason });
    else outer?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Whether the caller aborted (a method, so no narrowing survives the awaits in between). */
  cancelled(): boolean {
    return this.reason?.kind === 'cancelled';
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  stop(reason: StopReason): void {
    this.reason ??= reason;
    this.disarm();
    this.controller.abort();
  }

  /** Stops the request `ms` from now whatever else happens (its own timer, not replaced by `arm`); no `ms`, none. */
  deadline(ms: number | undefined): void {
    if (ms === undefined || ms <= 0) return;
    this.deadlineTimer = setTimeout(() => this.stop({ kind: 'deadline' }), ms);
    this.deadlineTimer.unref?.();
  }

  /** The reply's time ran out (and the caller did not cancel first). */
  pastDeadline(): boolean {
    return this.reason?.kind === 'deadline';
  }

  /** Stops with `reason` after `ms`, replacing any earlier timer; no `ms`, no timer. */
  arm(reason: StopReason, ms: number | undefined): void {
    this.disarm();
    if (ms === undefined || ms <= 0) return;
    this.timer = setTimeout(() => this.stop(reason), ms);
    this.timer.unref?.();
  }

  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Settles with `promise`, or rejects at once when the request is stopped first. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.reason !== undefined) return promise;
    return new Promise<T>((resolve, reject) => {
      const onStop = (): void => reject(new Error('stopped'));
      this.controller.signal.addEventListener('abort', onStop, { once: true });
      promise.then(resolve, reject).finally(() => this.controller.signal.removeEventListener('abort', onStop));
    });
  }

  /** The reply arrived whole: leaving must not abort the (finished) request. */
  complete(): void {
    this.completed = true;
  }

  dispose(): void {
    this.disarm();
    clearTimeout(this.deadlineTimer);
    this.outer?.removeEventListener('abort', this.onAbort);
    // A caller that stops reading early closes the connection, so the server stops generating.
    if (!this.completed) this.controller.abort();
  }
}
