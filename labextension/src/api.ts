// The server extension's endpoints, through Jupyter's authenticated connection.
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import {
  ISnapshotEnvelope,
  ITemplatesResponse,
  IWorkerTemplate
} from './types.js';

async function request<T>(
  path: string,
  query: Record<string, string> = {},
  init: RequestInit = {}
): Promise<T> {
  const settings = ServerConnection.makeSettings();
  const search = new URLSearchParams(query).toString();
  const url =
    URLExt.join(settings.baseUrl, 'tightpack', path) +
    (search ? `?${search}` : '');
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
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
  return request<ISnapshotEnvelope>('snapshot', query);
}

export function fetchTemplates(): Promise<ITemplatesResponse> {
  return request<ITemplatesResponse>('templates');
}

/** The template of a notebook's preview() target, made by the server extension. */
export function resolvePreview(target: object): Promise<IWorkerTemplate> {
  return request<IWorkerTemplate>(
    'preview',
    {},
    { method: 'POST', body: JSON.stringify({ target }) }
  );
}
