// The robot read from the URDF text by urdf-loader, its visual meshes taken from data.js.

import * as THREE from 'three';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { ColladaLoader } from 'three/examples/jsm/loaders/ColladaLoader.js';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import URDFLoader from 'urdf-loader';

function decodeBase64(text) {
  const bytes = atob(text);
  const out = new Uint8Array(bytes.length);
  for (let k = 0; k < bytes.length; ++k) out[k] = bytes.charCodeAt(k);
  return out.buffer;
}

// Meshes arrive base64-encoded in data.js under the filename written in the URDF; urdf-loader hands
// that filename to this callback unchanged (see `packages` and `workingPath` below).
function meshLoader(meshes, unsupported) {
  return (path, manager, material, done) => {
    const entry = meshes[path];
    if (!entry) {
      done(null);  // abdyn view could not find it; the note lists it
      return;
    }
    const buffer = decodeBase64(entry.base64);
    const ext = path.split('.').pop().toLowerCase();
    if (ext === 'stl') {
      done(new THREE.Mesh(new STLLoader().parse(buffer), material || new THREE.MeshPhongMaterial()));
    } else if (ext === 'dae') {
      done(new ColladaLoader().parse(new TextDecoder().decode(buffer), '').scene);
    } else if (ext === 'obj') {
      const group = new OBJLoader().parse(new TextDecoder().decode(buffer));
      if (material) group.traverse((o) => { if (o.isMesh) o.material = material; });
      done(group);
    } else {
      unsupported.push(path);
      done(null);
    }
  };
}

// The robot (urdf-loader's object tree) of the model's URDF text, or null after an error message.
export function loadRobot(model, say) {
  const unsupported = [];
  const loader = new URDFLoader();
  loader.workingPath = '';
  loader.packages = (pkg) => 'package://' + pkg;  // hands the URDF's filename to meshLoader unchanged
  loader.loadMeshCb = meshLoader(model.meshes, unsupported);
  // Comments carry nothing of the model, and urdfdom accepts some that XML forbids (a "--" inside):
  // drop them before the browser's strict parser sees the text.
  const urdf = new DOMParser().parseFromString(model.urdf.replace(/<!--[\s\S]*?-->/g, ''), 'text/xml');
  const xmlError = urdf.querySelector('parsererror');
  if (xmlError || !urdf.querySelector('robot')) {
    say('error', `the browser cannot read the URDF text as XML: ${xmlError ? xmlError.textContent : 'no <robot> element'}`);
    return null;
  }
  const robot = loader.parse(urdf);
  if (model.missing_meshes.length) {
    say('note', `meshes not found (drawn without them): ${model.missing_meshes.join(', ')}`);
  }
  if (unsupported.length) say('note', `mesh formats the viewer cannot read (STL, DAE and OBJ only): ${unsupported.join(', ')}`);
  return robot;
}
