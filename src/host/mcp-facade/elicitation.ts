import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { confirmationQuestion, type ConfirmationChannel } from '../router/index.js';

/**
 * Confirmation for an editor: an MCP elicitation when the client supports
 * it, otherwise the call is refused with the reason (nobody can be asked).
 */
export function elicitationConfirmation(server: Server): ConfirmationChannel {
  return {
    async confirm(request, { signal }) {
      if (!server.getClientCapabilities()?.elicitation) {
        return { answer: 'unavailable', reason: 'this MCP client does not support elicitation, so it cannot ask the user' };
      }
      const result = await server.elicitInput(
        {
          message: confirmationQuestion(request),
          requestedSchema: {
            type: 'object',
            properties: { approve: { type: 'boolean', title: 'Allow this call', description: `Run ${request.tool} now` } },
            required: ['approve'],
          },
        },
        { signal },
      );
      return result.action === 'accept' && result.content?.approve === true ? { answer: 'approved' } : { answer: 'denied' };
    },
  };
}
