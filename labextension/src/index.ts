import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { LabIcon } from '@jupyterlab/ui-components';
import { IPanelSettings, TightpackPanel } from './panel.js';

const PLUGIN_ID = 'jupyterlab-tightpack:plugin';

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
  optional: [ISettingRegistry, ILayoutRestorer],
  activate: async (
    app: JupyterFrontEnd,
    shell: ILabShell,
    registry: ISettingRegistry | null,
    restorer: ILayoutRestorer | null
  ) => {
    let settings: ISettingRegistry.ISettings | null = null;
    if (registry) {
      try {
        settings = await registry.load(PLUGIN_ID);
      } catch (e) {
        console.warn('jupyterlab-tightpack: cannot load settings', e);
      }
    }
    const panel = new TightpackPanel(read(settings));
    panel.title.icon = icon;
    settings?.changed.connect(() => panel.updateSettings(read(settings)));
    shell.add(panel, 'left', { rank: 900 });
    restorer?.add(panel, panel.id);
    app.commands.addCommand('tightpack:open', {
      label: 'Show Dask worker placement',
      execute: () => shell.activateById(panel.id)
    });
  }
};

export default plugin;
