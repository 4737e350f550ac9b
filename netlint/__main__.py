from netlint.cli import main

raise SystemExit(main())
