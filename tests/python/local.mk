# tests/python: targets are added here
