# bash completion for bankviz-cli (installed to share/bash-completion/completions/bankviz-cli).
# Subcommands and flags as `bankviz-cli --help-all` lists them (tests/install checks that every
# subcommand is here); preset, lesson and architecture names are asked of bankviz-cli itself.
_bankviz_cli() {
  local cur prev words cword
  _init_completion || return

  local commands="analyze wavefronts presets archs compare sweep advise experiments lessons run
    source validate profile serve measure export"
  local gpu="--gpu --gpu-command --gpu-timeout"
  local scenario="--file -f --preset -p --arch --elem --dims --pad --dynamic --swizzle --layout
    --block --define --let --step"

  case $prev in
    --preset | -p)
      COMPREPLY=($(compgen -W "$("$1" presets 2>/dev/null)" -- "$cur"))
      return ;;
    --arch)
      COMPREPLY=($(compgen -W "$("$1" archs 2>/dev/null | cut -f1 | grep -v '^ ')" -- "$cur"))
      return ;;
    --file | -f | --svg | --report | --suites | --out | --resume)
      _filedir
      return ;;
    --site)
      _filedir -d
      return ;;
    --elem)
      COMPREPLY=($(compgen -W "char short int long long float double half bfloat16 int2 int4
        float2 float4 double2" -- "$cur"))
      return ;;
    --mode)
      COMPREPLY=($(compgen -W "written exposed" -- "$cur"))
      return ;;
    --view)
      COMPREPLY=($(compgen -W "tile banks both" -- "$cur"))
      return ;;
  esac

  # The subcommand: the first word that is not a flag.
  local i sub=
  for ((i = 1; i < cword; i++)); do
    if [[ ${words[i]} != -* ]]; then
      sub=${words[i]}
      break
    fi
  done
  if [[ -z $sub ]]; then
    COMPREPLY=($(compgen -W "$commands --help --help-all --version" -- "$cur"))
    return
  fi

  local flags="--help"
  case $sub in
    analyze) flags+=" $scenario --json --no-pictures --show-step --warp --wavefront" ;;
    run) flags+=" $scenario $gpu --json --mode --timing-runs --launches --reps --timeout-ms
      --no-counters --steps --recorded" ;;
    source) flags+=" $scenario --mode --cubin --force" ;;
    export) flags+=" $scenario --svg --force --dark --view --show-step --warp --wavefront --cell
      --compare --slide --width" ;;
    advise) flags+=" $scenario --json" ;;
    sweep) flags+=" $scenario $gpu --param --run --csv --json" ;;
    compare)
      flags+=" $gpu --json --run"
      [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "$("$1" presets 2>/dev/null)" -- "$cur")); _filedir json; return; } ;;
    lessons)
      flags+=" --file --json --check"
      [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "$("$1" lessons 2>/dev/null | cut -f1)" -- "$cur")); return; } ;;
    wavefronts)
      flags+=" --arch"
      [[ $cur != -* ]] && { _filedir; return; } ;;
    validate) flags+=" $gpu --json --report --force --suite --suites" ;;
    profile)
      flags+=" $gpu --kernel --grid --block --arg --shared --timeout --scenario-of-line --lines --json
        --no-counters --model --record --record-gpu --line
        --save-recording --nvcc-flags --compiler"
      [[ $prev == --compiler ]] && { COMPREPLY=($(compgen -W "auto nvcc nvrtc" -- "$cur")); return; }
      [[ $cur != -* ]] && { _filedir cu; return; } ;;
    experiments) flags+=" $gpu --runs --json" ;;
    measure) flags+=" $gpu --out --force --budget-s --preset --no-sweeps --resume" ;;
    serve) flags+=" $gpu --http --site --token --allow-profile --max-waiting" ;;
  esac
  COMPREPLY=($(compgen -W "$flags" -- "$cur"))
} && complete -F _bankviz_cli bankviz-cli
