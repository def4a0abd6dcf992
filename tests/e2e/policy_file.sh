echo "1..0 # SKIP"; exit 77
