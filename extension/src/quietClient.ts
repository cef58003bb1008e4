/**
 * The language client, with one change: a failed request of an editor feature (code lens,
 * hover, code action, …) goes to the log, never to a notification. The stock client shows
 * "Request textDocument/codeLens failed." to the user; our rule is that internal errors are
 * logged. Commands are not affected: they call `sendRequest` and report their own errors.
 */
import {
  ConnectionError,
  LanguageClient,
  State,
  type CancellationToken,
  type MessageSignature,
} from 'vscode-languageclient/node';

export class QuietLanguageClient extends LanguageClient {
  override handleFailedRequest<T>(
    type: MessageSignature,
    token: CancellationToken | undefined,
    error: unknown,
    defaultValue: T,
  ): T {
    // A request that was on its way when the client began to stop (a restart, an interpreter
    // change) meets a closed connection: the editor asks again of the next server.
    if (this.state !== State.Running || error instanceof ConnectionError) {
      this.info(`${type.method} was not answered: the server was stopping (${String(error)})`, undefined, false);
      return defaultValue;
    }
    return super.handleFailedRequest(type, token, error, defaultValue, false);
  }
}
