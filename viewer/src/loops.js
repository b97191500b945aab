// Loop joints: a line between the two frames Fa and Fb of each, and a dot on each end.

import * as THREE from 'three';
import { vector } from './kinematics.js';

export function drawLoops(model, robot, world) {
  const linkObject = (name) => robot.links[name] || world;
  const worldPoint = (link, p) => world.worldToLocal(linkObject(link).localToWorld(vector(p)));
  const drawings = model.loops.map((loop) => {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6), 3));
    const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: 0xff7f00 }));
    const dotGeometry = new THREE.SphereGeometry(1, 16, 12);
    const dotMaterial = new THREE.MeshBasicMaterial({ color: 0xff7f00 });
    const dots = [new THREE.Mesh(dotGeometry, dotMaterial), new THREE.Mesh(dotGeometry, dotMaterial)];
    world.add(line, ...dots);
    return { loop, line, dots };
  });
  return {
    // the two ends in abdyn's world coordinates
    ends: () => model.loops.map((loop) => ({
      name: loop.name, a: worldPoint(loop.link_a, loop.p_a).toArray(), b: worldPoint(loop.link_b, loop.p_b).toArray() })),
    update() {
      for (const { loop, line, dots } of drawings) {
        const a = worldPoint(loop.link_a, loop.p_a);
        const b = worldPoint(loop.link_b, loop.p_b);
        const pos = line.geometry.attributes.position;
        pos.setXYZ(0, a.x, a.y, a.z);
        pos.setXYZ(1, b.x, b.y, b.z);
        pos.needsUpdate = true;
        dots[0].position.copy(a);
        dots[1].position.copy(b);
      }
    },
    setDotRadius: (r) => drawings.forEach(({ dots }) => dots.forEach((d) => d.scale.setScalar(r))),
    setVisible: (on) => drawings.forEach((d) => { d.line.visible = on; d.dots.forEach((x) => { x.visible = on; }); }),
  };
}
