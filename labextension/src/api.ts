// The server extension's endpoints, through Jupyter's authenticated connection.
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { ISnapshotEnvelope, ITemplatesResponse } from './types.js';

async function get<T>(
  path: string,
  query: Record<string, string> = {}
): Promise<T> {
  const settings = ServerConnection.makeSettings();
  const search = new URLSearchParams(query).toString();
  const url =
    URLExt.join(settings.baseUrl, 'tightpack', path) +
    (search ? `?${search}` : '');
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, {}, settings);
  } catch (e) {
    throw new Error(
      `cannot reach the Jupyter server: ${(e as Error).message}`,
      {
        cause: e
      }
    );
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(
      `${url} answered ${response.status} with something that is not JSON`
    );
  }
  if (!response.ok) {
    const error =
      (body as { error?: string; message?: string }).error ??
      (body as { message?: string }).message;
    throw new Error(error ?? `${url} answered ${response.status}`);
  }
  return body as T;
}

export function fetchSnapshot(
  refresh: boolean,
  source: string
): Promise<ISnapshotEnvelope> {
  const query: Record<string, string> = {};
  if (refresh) query.refresh = '1';
  if (source && source !== 'auto') query.source = source;
  return get<ISnapshotEnvelope>('snapshot', query);
}

export function fetchTemplates(): Promise<ITemplatesResponse> {
  return get<ITemplatesResponse>('templates');
}
