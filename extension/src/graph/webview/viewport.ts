/**
 * Zoom (wheel, buttons), pan (drag), fit and centre on a node, as one transform on the SVG's
 * root group, applied at most once per animation frame.
 */
export interface Zoom {
  x: number;
  y: number;
  k: number;
}

export class Viewport {
  zoom: Zoom = { x: 0, y: 0, k: 1 };
  private pending = false;
  private drag: { x: number; y: number; moved: boolean } | undefined;
  /** True right after a drag: the click that ends it is not a node click. */
  dragged = false;

  constructor(
    private readonly svg: SVGSVGElement,
    private readonly root: SVGGElement,
    private readonly onChange: (zoom: Zoom) => void,
  ) {
    svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      this.zoomAt(e.offsetX, e.offsetY, Math.exp(-e.deltaY * 0.0015));
    }, { passive: false });
    svg.addEventListener('pointerdown', (e) => {
      this.drag = { x: e.clientX, y: e.clientY, moved: false };
      this.dragged = false;
    });
    window.addEventListener('pointermove', (e) => {
      if (this.drag === undefined) {
        return;
      }
      const dx = e.clientX - this.drag.x;
      const dy = e.clientY - this.drag.y;
      if (!this.drag.moved && Math.abs(dx) + Math.abs(dy) < 3) {
        return;
      }
      this.drag = { x: e.clientX, y: e.clientY, moved: true };
      this.set({ ...this.zoom, x: this.zoom.x + dx, y: this.zoom.y + dy });
    });
    window.addEventListener('pointerup', () => {
      this.dragged = this.drag?.moved ?? false;
      this.drag = undefined;
    });
  }

  set(zoom: Zoom): void {
    this.zoom = zoom;
    if (!this.pending) {
      this.pending = true;
      requestAnimationFrame(() => {
        this.pending = false;
        const z = this.zoom;
        this.root.setAttribute('transform', `translate(${z.x.toFixed(1)},${z.y.toFixed(1)}) scale(${z.k.toFixed(4)})`);
        this.onChange(z);
      });
    }
  }

  zoomAt(px: number, py: number, factor: number): void {
    const k = Math.min(4, Math.max(0.02, this.zoom.k * factor));
    const f = k / this.zoom.k;
    this.set({ k, x: px - (px - this.zoom.x) * f, y: py - (py - this.zoom.y) * f });
  }

  zoomBy(factor: number): void {
    const box = this.svg.getBoundingClientRect();
    this.zoomAt(box.width / 2, box.height / 2, factor);
  }

  fit(width: number, height: number): void {
    const box = this.svg.getBoundingClientRect();
    const k = Math.min(1.5, Math.max(0.02, Math.min(box.width / (width + 40), box.height / (height + 40))));
    this.set({ k, x: (box.width - width * k) / 2, y: Math.max(10, (box.height - height * k) / 2) });
  }

  /** Scrolls (x, y) of the graph to the middle unless it is already well inside the view. */
  reveal(x: number, y: number): void {
    const box = this.svg.getBoundingClientRect();
    const sx = this.zoom.x + x * this.zoom.k;
    const sy = this.zoom.y + y * this.zoom.k;
    if (sx > box.width * 0.1 && sx < box.width * 0.9 && sy > box.height * 0.1 && sy < box.height * 0.9) {
      return;
    }
    const k = Math.max(this.zoom.k, 0.5);
    this.set({ k, x: box.width / 2 - x * k, y: box.height / 2 - y * k });
  }
}
