import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { AppError } from '../../../errors/index.js';
import type { TurnBody } from '../api-types.js';
import type { ApiDeps, VoiceControl } from '../deps.js';
import { errorResponse } from '../errors.js';
import { readJsonBody } from '../read-json.js';
import { confirmationAnswer, turnRequest } from '../request-bodies.js';
import { eventStream } from '../sse.js';
import { toolSummary } from '../tool-summary.js';

/** The routes that act: turns, interrupt, approvals, confirmations. */
export function actionRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  app.post('/turns', async (c) => {
    const body = await readJsonBody(c, turnRequest);
    const text = body.text;
    const wantsStream = body.stream === true || (c.req.header('accept') ?? '').includes('text/event-stream');
    if (!wantsStream) {
      const outcome = await deps.turns.start(text).done;
      return c.json({
        turnId: outcome.turnId,
        reply: outcome.reply,
        status: outcome.status,
        ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
        toolCalls: outcome.toolCalls.map((call) => ({ callId: call.callId, status: call.status })),
      } satisfies TurnBody);
    }
    // The stream follows the turn's events from before it starts until turn.ended.
    if (deps.turns.activeTurnId) throw new AppError('TURN_IN_PROGRESS', 'a turn is already running: wait for it or POST /interrupt');
    const turnId = randomUUID();
    const stream = eventStream(deps.events, undefined, {
      replayCount: 0,
      heartbeatMs: deps.sse.heartbeatMs,
      filter: (event) => event.turnId === turnId,
      endAfter: (event) => event.type === 'turn.ended' && event.turnId === turnId,
    });
    deps.turns.start(text, turnId);
    return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-turn-id': turnId } });
  });

  app.post('/listen/start', (c) => {
    const voice = requireVoice(deps);
    if (!voice.startListening('http')) {
      const missing = voice.missing ?? [];
      if (missing.length > 0) throw new AppError('VOICE_DEVICE_LOST', `the voice cannot listen now: ${missing.map((device) => device.message).join('; ')}`);
      throw new AppError('VOICE_BUSY', 'the voice is already listening or answering');
    }
    return c.json({ listening: true });
  });

  app.post('/listen/stop', (c) => {
    const voice = requireVoice(deps);
    return c.json({ stopped: voice.stopListening(), listening: voice.listening });
  });

  // A text turn, and the full-duplex voice's reply: either may be under way.
  app.post('/interrupt', (c) => {
    const text = deps.turns.interrupt();
    const voice = deps.voice?.interrupt?.() ?? false;
    return c.json({ interrupted: text || voice });
  });

  app.post('/tools/:name/approve', (c) => {
    const name = c.req.param('name');
    const approved = deps.router.approve(name);
    if (!approved) return errorResponse(c, 'TOOL_UNKNOWN', `no tool named ${name}`);
    return c.json({ tool: toolSummary(deps.router.catalog().find((t) => t.name === name) ?? approved.tool), changes: approved.changes });
  });

  app.post('/confirmations/:id', async (c) => {
    const { approve } = await readJsonBody(c, confirmationAnswer);
    const id = c.req.param('id');
    if (!deps.confirmations.answer(id, approve)) return errorResponse(c, 'CONFIRMATION_UNKNOWN', `nothing waits for a confirmation under ${id}`);
    return c.json({ id, approved: approve });
  });
  return app;
}

function requireVoice(deps: ApiDeps): VoiceControl {
  if (!deps.voice) throw new AppError('VOICE_DISABLED', `the voice is not running: ${deps.voiceOff ?? 'start the daemon without --no-voice and with [voice] enabled = true'}`);
  return deps.voice;
}
