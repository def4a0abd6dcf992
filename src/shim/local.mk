# src/shim: targets are added here
