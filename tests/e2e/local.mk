# tests/e2e: targets are added here
