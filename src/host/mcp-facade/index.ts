export { createFacadeServer } from './facade-server.js';
export { elicitationConfirmation } from './elicitation.js';
