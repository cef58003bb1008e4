# ExportLens real-code corpus, case `basicsr`: the architecture registry the `@ARCH_REGISTRY.register()`
# decorator fills. Modelled on XPixelGroup/BasicSR basicsr/utils/registry.py @
# 323cc143d4813648c9c1b21008d545f2be4bf811 (Apache License 2.0). Written for this corpus.


class Registry:
    def __init__(self, name):
        self._name = name
        self._obj_map = {}

    def register(self, obj=None):
        def deco(func_or_class):
            name = func_or_class.__name__
            assert name not in self._obj_map, f"An object named '{name}' was already registered in '{self._name}'!"
            self._obj_map[name] = func_or_class
            return func_or_class

        return deco if obj is None else deco(obj)

    def get(self, name):
        return self._obj_map[name]


ARCH_REGISTRY = Registry("arch")
