# tests/unit: targets are added here
