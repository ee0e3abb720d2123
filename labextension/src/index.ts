import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { LabIcon } from '@jupyterlab/ui-components';
import { resolvePreview } from './api.js';
import {
  IForecastQuestion,
  IPanelSettings,
  IQuestion,
  TightpackPanel
} from './panel.js';
import { MIME_TYPE, PreviewRenderer } from './preview.js';
import { ClusterSession } from './session.js';

const PLUGIN_ID = 'jupyterlab-tightpack:plugin';
const ASK_COMMAND = 'tightpack:ask';

// Nodes of three sizes packed into a rack: the sidebar's icon.
const icon = new LabIcon({
  name: 'tightpack:icon',
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
    '<g class="jp-icon3" fill="#616161">' +
    '<rect x="3" y="3" width="8" height="8" rx="1"/><rect x="13" y="3" width="8" height="5" rx="1"/>' +
    '<rect x="13" y="10" width="8" height="11" rx="1"/><rect x="3" y="13" width="8" height="8" rx="1" fill-opacity="0.45"/>' +
    '</g></svg>'
});

function read(settings: ISettingRegistry.ISettings | null): IPanelSettings {
  return {
    snapshotSource:
      (settings?.get('snapshotSource').composite as string) ?? 'auto',
    refreshInterval:
      (settings?.get('refreshInterval').composite as number) ?? 0,
    defaultProfile:
      (settings?.get('defaultProfile').composite as string) ?? 'tightpack'
  };
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'See where your Dask workers will land before you scale.',
  autoStart: true,
  requires: [ILabShell],
  optional: [ISettingRegistry, ILayoutRestorer, IRenderMimeRegistry],
  activate: async (
    app: JupyterFrontEnd,
    shell: ILabShell,
    registry: ISettingRegistry | null,
    restorer: ILayoutRestorer | null,
    rendermime: IRenderMimeRegistry | null
  ) => {
    let settings: ISettingRegistry.ISettings | null = null;
    let current = read(null);
    // One cluster for the sidebar and every notebook's previews.
    const session = new ClusterSession(() => current.snapshotSource);
    // Before anything is awaited: notebooks opened from the restored layout
    // copy the registry's renderers when they open.
    rendermime?.addFactory(
      {
        safe: true,
        mimeTypes: [MIME_TYPE],
        defaultRank: 50,
        createRenderer: () =>
          new PreviewRenderer({
            session,
            resolve: resolvePreview,
            defaultProfile: () => current.defaultProfile,
            openInSidebar: question =>
              void app.commands.execute(
                ASK_COMMAND,
                question as unknown as ReadonlyPartialJSONObject
              )
          })
      },
      50
    );
    if (registry) {
      try {
        settings = await registry.load(PLUGIN_ID);
      } catch (e) {
        console.warn('jupyterlab-tightpack: cannot load settings', e);
      }
    }
    current = read(settings);
    const panel = new TightpackPanel(current, session);
    panel.title.icon = icon;
    settings?.changed.connect(() => {
      current = read(settings);
      panel.updateSettings(current);
    });
    shell.add(panel, 'left', { rank: 900 });
    restorer?.add(panel, panel.id);
    app.commands.addCommand('tightpack:open', {
      label: 'Show Dask worker placement',
      execute: () => shell.activateById(panel.id)
    });
    app.commands.addCommand(ASK_COMMAND, {
      label: 'Show a notebook preview in the Dask worker placement sidebar',
      execute: args => {
        shell.activateById(panel.id);
        panel.ask(args as unknown as IQuestion | IForecastQuestion);
      }
    });
  }
};

export default plugin;
