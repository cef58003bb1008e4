# Targets for the VS Code client; included by the top-level Makefile.
