/* cluster_resolver.h - v0.3.1 - who are the members of this distributed job, at which
   addresses, and which one am I? - MIT or public domain (Unlicense), see end of file

   Do this:
      #define CLUSTER_RESOLVER_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation; other
   files include it without the define. C99 or C++ (tested: C99, C11, C++11, C++17, gcc and
   clang, 32-bit, mingw-w64). The declarations need <stddef.h>; the implementation needs the
   jsmn tokenizer as a system header (<jsmn.h>, Debian libjsmn-dev) and <curl/curl.h> with
   CLUSTER_RESOLVER_USE_CURL. jsmn is set up per file, by its first #include: the
   implementation defines JSMN_STATIC, JSMN_PARENT_LINKS and JSMN_STRICT and includes it, so
   jsmn in that file is static and strict (no bare keys, no top-level number) and jsmntok_t
   has `parent`, for the program's own later #include <jsmn.h> too. An #include <jsmn.h>
   before the implementation must define the three first (without JSMN_STATIC its functions
   are extern, and the implementation uses them); without JSMN_PARENT_LINKS or JSMN_STRICT,
   or with JSMN_HEADER (jsmn's code in another file), the build stops at an #error naming it.

   CONTENTS
      1. Quick start                     6. Resolvers: common calls, your own backend
      2. Conventions                     7. Backends, one block each
      3. Macros and compile switches     8. Launcher output and Slurm hostlists
      4. cres_config                     9. Limits and threads
      5. Cluster specs
      Code map (search for ">>tag"): declarations >>results >>config >>spec >>resolver
      >>backends >>launch >>hostlist; implementation >>impl >>alloc >>errors >>writer >>text
      >>json >>spec >>resolver >>http >>curl >>simple >>union >>tfconfig >>local >>k8s >>kubeconfig
      >>google >>gce >>tpu >>hostlist >>hpc >>slurm >>hostfile >>mpi >>sched >>sagemaker
      >>platform >>coord >>auto >>launch.
      The HTTP transport's contract is beside cres_transport; README has the differences
      from TensorFlow, with reasons. The command-line tool, examples/cluster-resolve.c, is
      this library built with CLUSTER_RESOLVER_USE_CURL, _USE_YAML and _USE_OPENSSL; `make
      install` installs it as bin/cluster-resolve with its manual page, cluster-resolve(1),
      and bash completion.

   1. QUICK START ------------------------------------------------------------------------

      cres_resolver *r; cres_cluster_spec *spec; cres_error err; char master[256];
      if (cres_auto_resolver_create(NULL, &r, &err) != CRES_OK) { puts(err.message); return 1; }
      if (cres_resolve(r, &spec, &err) == CRES_OK) {
          const char *type = cres_task_type(r); // NULL when no source names the own task
          const cres_job *job = cres_spec_job(spec, type ? type : "worker");
          printf("%zu jobs; I am %s/%d\n", cres_spec_jobs_count(spec), type ? type : "?",
                 cres_task_id(r));
          for (size_t i = 0; job && i < job->tasks_count; i++) // indices may have gaps
              printf("  %s %d at %s\n", job->name, job->tasks[i].index, job->tasks[i].address);
          if (cres_master(r, master, sizeof master, NULL, &err) == CRES_OK) puts(master);
          cres_spec_free(spec);
      } else {
          puts(err.message);
      }
      cres_resolver_free(r);

   A cluster spec maps job names ("worker", "ps", "chief") to tasks: index -> address
   ("10.0.0.7:8470"), jobs by name, tasks by index (dense 0..n-1, sparse {0: a, 3: b}, or
   none). A resolver finds the spec from a source (a variable, a launcher, a cloud API) and
   this process's own task (type = job name, id = index) when the source says. A task's
   master is its address, "<rpc_layer>://" before it with an RPC layer ("grpc"); "" means
   local / in-process, as in TensorFlow.

   2. CONVENTIONS ------------------------------------------------------------------------
      Results. Every call that can fail returns a cres_result (CRES_OK = 0) and takes an
      optional cres_error *err (NULL allowed), cleared first. On failure err->message
      (at most CRES_ERROR_MESSAGE_SIZE bytes, cut, NUL-terminated) names what failed:
      `TF_CONFIG: "task.index" must be an integer, not "x"`; err->http_status holds the HTTP
      status behind a CRES_ERR_HTTP_STATUS. cres_result_string() is a fixed text per code.
      Beyond the obvious: CRES_ERR_ENVIRONMENT a variable or file is missing or wrong (and
      "not on Google Cloud"); CRES_ERR_NOT_READY pods, instances or a TPU not ready yet;
      CRES_ERR_UNSUPPORTED a Slurm distribution or MPI policy we cannot follow, a backend
      left out of the build, TPU cores per host unknown; CRES_ERR_UNEXPECTED_RESPONSE an
      answer of the wrong shape; CRES_ERR_NO_TRANSPORT an HTTP resolve without a transport;
      CRES_ERR_INCOMPLETE a resolve of a coordinator-only source (section 7), which names
      the coordinator, the size and the own rank but not every address: cres_launch() and
      cres_master() still work.
      cres_error_set(err, result, format, ...) sets result and message, as the library does:
      use it in backends and transports of your own (err->message may be an argument:
      "mine: %s" wraps the message a lower call left).
      Memory. Every object records the allocator it was made with and frees with it;
      cres_spec_free() and cres_resolver_free() accept NULL. On failure nothing is returned
      and nothing is left allocated.
      Strings the library writes go into your buffer, snprintf-style: at most `cap` bytes
      with the NUL, the full length (without it) in *out_len when out_len is not NULL; buf
      NULL with cap 0 asks for the length; a short buffer gets a cut, terminated string and
      CRES_ERR_BUFFER_TOO_SMALL; buf NULL with cap > 0 is CRES_ERR_INVALID_ARGUMENT. Strings
      a getter returns belong to the object and live until it is freed or a call changes
      their value (cres_set_*, cres_resolve, cres_master on it).
      Callbacks sit in a struct beside their `user` pointer and take it first: allocator
      {alloc(user, size), free(user, ptr), user}, the getenv, log and sleep hooks {fn, user},
      the transport {perform(user, ...), close_session(user, session), user}. They run on the
      thread that called into the library; the library borrows them (they must outlive it).
      Unknown and none: one rule. A string the library does not know, or that is not there,
      is NULL, never "": cres_task_type(), cres_rpc_layer(), cres_environment() and
      cres_resolver_name(NULL) return NULL then (print them as `s ? s : "-"`); a task type
      set to "" (an override TensorFlow allows) reads back as "". A number it
      does not know is -1, CRES_UNKNOWN: cres_task_id() (CRES_NO_TASK is its other name) and
      the numbers of cres_launch_info. As arguments the same values mean "the own one":
      task_type NULL, task_id CRES_OWN_TASK (-1), rpc_layer NULL; rpc_layer "" means none.
      The own task. Short calls act for the own task: cres_master, cres_num_accelerators,
      cres_visible_devices, cres_launch, cres_tfconfig. Their *_of / cres_spec_* forms take
      a task, as above (task_id below -1 is CRES_ERR_INVALID_ARGUMENT).
      Walking a job. Task indices are int and may have gaps (a sparse job {0: a, 3: b}), so
      walk a job's tasks (job->tasks[i], i < job->tasks_count, as the quick start does),
      not 0..count-1, and pass job->tasks[i].index where a call takes a task_id.
      Options structs: all zero means defaults (NULL options too, except simple, union and
      gce, which need theirs); strings are copied; their first member is `const cres_config
      *config` (NULL = all defaults); task_type (NULL = what the backend finds), task_id
      (read only with task_type: a task_id above 0 without one is CRES_ERR_INVALID_ARGUMENT
      naming both) and rpc_layer (NULL = the backend's) are in every one but local's (use
      cres_set_task()). Options that only mean something together are refused apart or
      crossed, naming them: jobs without jobs_count or the reverse; kubernetes' token with
      token_file, namespace_name with namespace_file, kubeconfig or context with server;
      sagemaker's instance_groups_dict or current_instance_group without instance_groups.
      The contract across backends. A call, an option and a code mean one thing whichever
      backend answers (cluster-resolve(1), CONTRACT, says the same of the CLI's formats):
      - cres_resolve() gives the whole spec or fails: CRES_ERR_INCOMPLETE for the
        coordinator-only sources (torch, jax, awsbatch, a TPU across slices), which still
        answer cres_launch() and cres_master(); a task given (options, cres_set_task) that is
        not in the spec is CRES_ERR_NOT_FOUND (TF's "evaluator", run outside the cluster,
        excepted).
      - cres_master() is TensorFlow's master() of the matching TF resolver: "" for a cluster
        of one task where TF says so (tfconfig, vertex, sagemaker) and without an own task;
        the own task's address otherwise; the coordinator of a coordinator-only source.
      - cres_launch(): ranks "chief" first, then the jobs by name, each by task index; TF's
        "evaluator" and Vertex's pools 2 and 3 take none; rank 0 is the coordinator. Then
        cres_launch_apply_env() (section 8): the environment's MASTER_ADDR / MASTER_PORT are
        kept, its sizes and ranks must equal the answer (CRES_ERR_ENVIRONMENT naming both).
        A node's launcher (one torchrun per node) answers ranks CRES_UNKNOWN.
      - cres_visible_devices() splits a device list only when its source says it is the
        node's (Slurm's SLURM_GPUS_ON_NODE, options.gpus_per_node), per node; a list bound to
        the task is passed on whole.
      - Options of one name mean one thing: port the port of addresses built from host names
        (local, k8s, gce, sagemaker, awsbatch, skypilot, volcano, lws); port_base the first
        port of slurm, mpi, pbs, lsf, sge and flux (task k of a host at port_base + k); jobs,
        gpus_per_node and gpus_per_task those six's; hostfile mpi's and flux's; job_name the
        job of the single-job sources. cres_auto_options has auto's own (port, k8s_members)
        and a pointer to each backend's options struct, used when auto picks that backend.
      - Auto answers one local task only when no launcher's variable says this process may
        be one of several (section 7, auto): CRES_ERR_ENVIRONMENT naming it otherwise.
      - The CLI's exit codes are these results': 2 its command line (and
        CRES_ERR_INVALID_ARGUMENT of options it passed); 3 CRES_ERR_ENVIRONMENT,
        _INVALID_JSON, _NOT_FOUND, _CONFLICT, _LIMIT, _UNSUPPORTED, _NO_TRANSPORT,
        _INCOMPLETE; 4 CRES_ERR_TRANSPORT, _TIMEOUT, _HTTP_STATUS, _UNEXPECTED_RESPONSE; 5
        CRES_ERR_NOT_READY; 1 the rest (CRES_ERR_OUT_OF_MEMORY).

   3. MACROS AND COMPILE SWITCHES -------------------------------------------------------
      Define before including, in every file (E) or only in the implementation's (I):
      CLUSTER_RESOLVER_IMPLEMENTATION  (I) the implementation goes here.
      CLUSTER_RESOLVER_STATIC          (E) every function static (private to one file).
      CRES_API                         (E) decoration of public functions; default extern.
      CRES_MALLOC(sz), CRES_REALLOC(p,sz), CRES_FREE(p)  (I) the default allocator
                                           (malloc, realloc, free): all three or none.
      CLUSTER_RESOLVER_USE_CURL        (I) the bundled libcurl transport (-lcurl); declare it
                                           in other files too to see cres_curl_transport().
      CLUSTER_RESOLVER_USE_YAML        (I) YAML kubeconfig files through libyaml (-lyaml,
                                           Debian libyaml-dev); JSON ones need nothing.
      CLUSTER_RESOLVER_USE_OPENSSL     (I) Google service-account keys signed (RS256) by
                                           OpenSSL's libcrypto (-lcrypto, libssl-dev);
                                           without it, config.sign or no key files.
      CLUSTER_RESOLVER_NO_KUBECONFIG   (I) kubernetes without kubeconfig files and exec
                                           plugins (in cluster and options.server only).
      CLUSTER_RESOLVER_NO_K8S_JOB      (I) kubernetes without members JOB (10.9 KiB):
                                           lists only; asking for JOB is
                                           CRES_ERR_UNSUPPORTED, auto lists.
      CLUSTER_RESOLVER_NO_<BACKEND>    (I) leaves a backend out: SIMPLE, UNION, TFCONFIG,
                                           LOCAL, K8S, GCE, TPU, SLURM, MPI, PBS, LSF, SGE,
                                           FLUX, SAGEMAKER, VERTEX, SKYPILOT, VOLCANO, LWS,
                                           TORCH, JAX, AWSBATCH, AUTO.
                                           Its create function stays and fails with
                                           CRES_ERR_UNSUPPORTED naming the switch; the HTTP
                                           layer goes with K8S, GCE and TPU together. Auto
                                           refuses an environment whose backend is left out
                                           (never a one-task local job instead) and its log
                                           line lists what the build left out.
      Limits (I), int constants (section 9): CRES_MAX_JSON_TOKENS (1000000),
      CRES_MAX_JSON_DEPTH (128), CRES_MAX_DOCUMENT_BYTES (16 MiB: a JSON document that is not
      an HTTP body, a hostfile, TPU_CONFIG), CRES_MAX_NAME_LENGTH (255: a job or host name),
      CRES_MAX_ADDRESS_LENGTH (1023), CRES_MAX_RETRY_AFTER_MS (32000), CRES_MAX_K8S_PAGES
      (1000 per selector), CRES_MAX_K8S_PODS (100000 per job), CRES_MAX_GCP_PAGES (1000 per
      list), CRES_MAX_HOSTLIST_HOSTS (1000000, checked before expanding),
      CRES_MAX_KUBECONFIG_FILES (64 names in $KUBECONFIG). Whatever they say,
      cres_launch_info keeps hosts of CRES_HOST_SIZE - 1 bytes and addresses of
      CRES_ADDRESS_SIZE - 1, and a hostlist name has at most 16 bracket groups.
      Version: CLUSTER_RESOLVER_VERSION_MAJOR/_MINOR/_PATCH, _STRING ("0.3.1"), _NUM
      ((major << 16) | (minor << 8) | patch), and cres_version_string().

   4. CRES_CONFIG -----------------------------------------------------------------------
      What every backend shares; each create checks it and keeps a copy with the defaults
      settled (no call changes it):
        allocator     zero = CRES_MALLOC / CRES_FREE; both functions or neither. alloc never
                      gets 0 bytes, free never NULL; there is no realloc (the library copies).
                      Every allocator the library hands out (to perform(), to the exec hook,
                      from cres_resolver_allocator()) has both filled in: call it as it is.
        getenv        NULL = getenv(). Every variable the library reads goes through it; it
                      never calls setenv(). The string must stay valid until the call that
                      asked returns. (libcurl reads http_proxy and friends itself; auto also
                      looks for SageMaker's resource config file.)
        env_list      NULL = the process environment (environ): the index-th variable as
                      "NAME=VALUE", NULL past the last, for names not known in advance
                      (volcano's VC_<TASK>_HOSTS); with a getenv hook of your own, give this
                      one too, over the same variables.
        log           NULL = silent. DEBUG each request's method and URL; INFO choices (auto's
                      pick, 410 restarts, polls); WARN retries. Messages live for the call;
                      access tokens are never logged.
        sleep         NULL = select() (Sleep() on Windows): retry waits and Kubernetes polls,
                      so tests can make time pass at once.
        transport     perform NULL = cres_curl_transport() when compiled in. features: the
                      CRES_TRANSPORT_* bits of request->tls (cres_http_tls: CA and client
                      certificate as PEM, server name, proxy, insecure) it honours; a
                      request needing another is CRES_ERR_UNSUPPORTED before perform().
        exec          fn NULL = posix_spawnp() (CRES_ERR_UNSUPPORTED on Windows): runs a
                      kubeconfig's exec plugin, argv without a shell, the whole environment
                      in envp, stdin /dev/null, bounded by timeout_ms and max_output_bytes;
                      see cres_exec_fn for its results.
        sign          fn NULL = libcrypto with CLUSTER_RESOLVER_USE_OPENSSL, else none: signs
                      a Google service-account JWT (RS256 with the key file's PEM key, at
                      most CRES_SIGNATURE_MAX bytes); a signer of the program's own (a KMS,
                      an HSM, another library) in builds without OpenSSL.
        timeout_ms    each HTTP request: 0 = 10000; negative: CRES_ERR_INVALID_ARGUMENT.
        max_retries   connection errors (a connect timeout among them) and 5xx: 0 = 3,
                      -1 = none; below -1 invalid. A 429 is retried for as long as
                      resolve_timeout_ms leaves time (max_retries times with no bound; never
                      with -1). Each wait is drawn at random, so that the pods of a job
                      refused together do not come back together: Retry-After R (up to
                      CRES_MAX_RETRY_AFTER_MS, 32 s): R to 2R; a 429 without one: 0 to b; a
                      connection error or 5xx: b to 1.5 b (b: 250 ms doubling up to 10 s).
        max_response_bytes  0 = 64 MiB.
        resolve_timeout_ms  a whole resolve, every page, retry and wait: 0 = 60000, -1 = no
                      bound; below -1 invalid. Each request gets at most the time left and
                      none starts after it, so answers dripping in one by one still end in
                      CRES_ERR_TIMEOUT.

   5. CLUSTER SPECS ----------------------------------------------------------------------
      cres_spec_create(alloc, &spec, err)  an empty spec (alloc NULL = the default); free it
               with cres_spec_free(). cres_spec_add_task(spec, job, index, address, err): one
               task (index 0..INT_MAX; the job is made when needed; an index given twice is
               CRES_ERR_CONFLICT). cres_spec_add_job(spec, job, addresses, count, err): tasks
               0..count-1 (0: an empty job). Job names: 1..CRES_MAX_NAME_LENGTH bytes of UTF-8
               without control characters; addresses: 1..CRES_MAX_ADDRESS_LENGTH, without
               blanks either, not parsed (too long: CRES_ERR_LIMIT, else _INVALID_ARGUMENT).
               Strings are copied; a failed call leaves the spec as it was.
      Reading  cres_spec_jobs_count, cres_spec_job_at(spec, i) (NULL past the end),
               cres_spec_job(spec, name) (a cres_job pointing into the spec, valid until it
               changes), cres_spec_task_address(spec, job, index) (NULL when absent),
               cres_spec_tasks_count(spec, job) (tasks defined, not max index + 1).
      cres_spec_equal(a, b)  the same jobs and tasks; dense equals sparse with the same
               indices; an empty job is not a missing one; NULL equals only NULL.
      cres_spec_clone(spec, alloc, &copy, err)  a deep copy with alloc (NULL = the default,
               not spec's).
      cres_spec_merge(dst, src, err)  TensorFlow's Union rules: two dense jobs concatenate
               (src's tasks after dst's); else indices are kept, and one in both is
               CRES_ERR_CONFLICT naming job and index. dst is unchanged on failure.
      cres_spec_from_json(json, len, alloc, &spec, err)  TF_CONFIG's "cluster" object,
               {"worker": ["a:1", "b:2"], "ps": {"3": "c:3"}}, len bytes (no NUL needed; a NUL
               among them, as when len counts the terminator, is named with its offset):
               CRES_ERR_INVALID_JSON (a job or index given twice too), CRES_ERR_LIMIT over
               CRES_MAX_DOCUMENT_BYTES. cres_spec_to_json(spec, buf, cap, &len, err) writes
               that form: dense jobs as lists, sparse ones as objects with string keys,
               empty ones as [].

   6. RESOLVERS --------------------------------------------------------------------------
      cres_<name>_resolver_create(&options, &r, err) for simple, union, tfconfig, local,
      k8s (named "kubernetes"), gce, tpu, slurm, mpi, pbs, lsf, sge, flux, sagemaker,
      vertex, skypilot, volcano, lws, torch, jax, awsbatch, auto; *r NULL on failure.
      Backends whose source is the environment or a file (all but kubernetes, gce and tpu)
      read it once, at create, and fail there; the HTTP ones ask their API at every
      resolve.
      cres_resolve(r, &spec, err)       a fresh spec; free it with cres_spec_free(). A task
                  given (cres_set_task, options.task_type) that is not in it is
                  CRES_ERR_NOT_FOUND naming it, and no spec (TensorFlow's "evaluator", which
                  runs outside the cluster, excepted).
      cres_master(r, buf, cap, &len, err)
                  the own task's address, "<rpc>://" before it when the rpc layer is not
                  empty; no own task: the backend's rule (by default ""). It is
                  TensorFlow's master() of the matching TF resolver: tfconfig, vertex and
                  sagemaker give "" for a cluster of one task (a local session), the others
                  the own task's address. Rank 0's address is cres_launch()'s master.
                  Backends without a rule of their own resolve at each call (HTTP: requests; keep
                  the spec and use cres_spec_task_address() instead). cres_master_of(r,
                  task_type, task_id, rpc_layer, ...): another task's ("" = no rpc layer); a
                  task missing from the spec is CRES_ERR_NOT_FOUND.
      cres_num_accelerators(r, &acc, err), _of(r, type, id, ...)
                  per task, e.g. {"GPU", 4}: at most CRES_MAX_ACCELERATOR_KINDS kinds.
      cres_visible_devices(r, buf, cap, &len, err), _of(...)
                  the CUDA_VISIBLE_DEVICES value a task should get ("2,3"), "" when the
                  backend assigns none (the task keeps the list it has: one its launcher
                  bound to it, or one nobody says is the node's). Never written to the
                  environment.
      cres_launch(r, &info, err), cres_tfconfig(r, buf, cap, &len, err): section 8.
      Getters: cres_task_type, cres_task_id, cres_rpc_layer, cres_environment (NULL or
      CRES_UNKNOWN when unknown, section 2), cres_resolver_name (the backend's; auto: the one
      it chose). cres_set_task(r, type, id, err): an override (NULL keeps the type,
      CRES_OWN_TASK the id) that always wins over what the backend finds later, "" and 0
      included. cres_set_rpc_layer(r, rpc, err): NULL or "" = none. cres_resolver_free(r).
      Your own backend: fill a static cres_resolver_vtable (name, resolve; optionally
      master, num_accelerators, destroy, visible_devices, launch);
      cres_resolver_new(sizeof(mine),
      &vtable, config, &r, err) checks the config and gives a zeroed block whose first
      member is the cres_resolver. resolve() builds its spec with cres_spec_create(
      cres_resolver_allocator(r), ...), reads variables with cres_resolver_getenv(r, name)
      (and lists them with cres_resolver_env_at(r, index)),
      reports the own task with cres_set_detected_task() (an override wins) and the
      environment with cres_set_environment(); returning CRES_OK without a spec is
      CRES_ERR_UNEXPECTED_RESPONSE; failures via cres_error_set(). destroy() frees what the
      backend owns, never the block. See examples/custom_backend.c.

   7. BACKENDS ---------------------------------------------------------------------------
      Each block: what it reads; its options (defaults); its own task; its errors. The rpc
      layer is "grpc" unless the block says otherwise.

      simple (cres_simple_options)
        Reads:    options.spec (required, copied), master, environment, accelerators (at
                  most CRES_MAX_ACCELERATOR_KINDS kinds, the same for every task; counts not
                  negative, types NUL-terminated). No rpc layer. master(): options.master
                  when set, else the default rule.
      union (cres_union_options)
        Reads:    its children's specs, each asked once per resolve, merged with
                  cres_spec_merge(). At least one child, none NULL, none twice; borrowed, or
                  freed with the union (also when its create fails) with owns_resolvers. A
                  child has one owner: one another union owns is refused, and
                  cres_resolver_free() of an owned child does nothing (its union frees it).
        Own task: the union's override, else the first child's (known after a resolve);
                  rpc layer and environment likewise (as at create). master() without a
                  task, accelerators and visible devices: the first child's.
      tfconfig (cres_tfconfig_options)
        Reads:    $TF_CONFIG or options.json, once: {"cluster": {...}, "task": {"type": T,
                  "index": N}, "rpc_layer": R, "session_master": S, "environment": E};
                  "sparseCluster" when "cluster" is absent. task.type a string or an
                  integer; task.index an integer or a decimal string. Unset, empty or blank:
                  an empty cluster. No rpc layer unless it says one.
        Own task: task.type / task.index. master() without one: session_master when set,
                  whatever the task (as TF); "" for an empty cluster or one job holding only
                  task 0; else CRES_ERR_NOT_FOUND.
        Errors:   CRES_ERR_ENVIRONMENT naming the field: malformed JSON, wrong types, an
                  index negative, not an integer or past INT_MAX, a task type not a job of
                  the cluster, a task beside a missing or empty cluster (both but for
                  "evaluator", which runs outside it), an index without a type, an index
                  missing from its job; over CRES_MAX_DOCUMENT_BYTES CRES_ERR_LIMIT. Keys
                  TF_CONFIG does not have are ignored, as TF does, but named in a WARN log
                  line and in those errors ("cluser" for "cluster").
      local (cres_local_options)
        Reads:    nothing: one task, its own, job "worker" (job_name) at "localhost:8470"
                  (host; port 1..65535, 0 = 8470; a host with ':' is bracketed). No rpc
                  layer (rpc_layer).
      auto (cres_auto_options)
        Reads:    the environment, without a network call; the first that applies, the
                  innermost launcher first (the one that started this process):
                  1 tfconfig   TF_CONFIG set and not blank (explicit, so it wins)
                  2 torch      TORCHELASTIC_RUN_ID (a torchrun worker, even inside srun)
                  3 mpi        OMPI_COMM_WORLD_SIZE, MV2_COMM_WORLD_SIZE, PMI_SIZE or
                               PMIX_RANK (mpirun in a Slurm allocation: its Slurm
                               variables describe the daemons, so MPI wins); not PMI_SIZE
                               with FLUX_TASK_RANK (Flux's PMI) or with PALS_RANKID and
                               PBS_NODEFILE (Cray PALS's mpiexec: pbs reads its names)
                  4 slurm      SLURM_STEP_NODELIST (a job step)
                  5 pbs        PALS_RANKID or PBS_VNODENUM, with PBS_NODEFILE or PBS_JOBID (not
                               Torque's job script: PBS_VNODENUM 0 beside PBS_TASKNUM 1)
                  6 lsf        JSM_NAMESPACE_RANK (jsrun), with an LSB_* below
                  7 flux       FLUX_TASK_RANK
                  8 vertex     CLUSTER_SPEC (Vertex AI sets TF_CONFIG too for TensorFlow)
                  9 sagemaker  SM_HOSTS or SM_CURRENT_HOST, or the resource config file
                  10 skypilot  SKYPILOT_NODE_IPS
                  11 volcano   VC_TASK_INDEX or VK_TASK_INDEX, or a VC_<TASK>_HOSTS (the svc
                               plugin alone)
                  12 lws       LWS_LEADER_ADDRESS or LWS_WORKER_INDEX
                  13 awsbatch  AWS_BATCH_JOB_NODE_INDEX or AWS_BATCH_JOB_NUM_NODES
                  14 torch     RANK, or WORLD_SIZE other than 1 (torch.distributed's names;
                               WORLD_SIZE without RANK in a scheduler's job script is the
                               user's export for the launch to come, not a process's)
                  15 jax       JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES or JAX_PROCESS_ID
                  16 torch     PET_NNODES, PET_NODE_RANK or PET_MASTER_ADDR (Kubeflow)
                  17 a scheduler's allocation where this process has no rank of its own (a
                               job script, an allocation shell), after the launchers above,
                               which may run inside it (DeepSpeed's launch.py in an sbatch
                               script): slurm SLURM_JOB_ID or SLURM_JOBID; pbs PBS_NODEFILE
                               or PBS_JOBID; lsf LSB_DJOB_RANKFILE, LSB_MCPU_HOSTS or
                               LSB_JOBID; sge PE_HOSTFILE; flux FLUX_JOB_ID or
                               FLUX_ENCLOSING_ID
                  18 tpu       TPU_PROCESS_ADDRESSES, TPU_WORKER_HOSTNAMES, TPU_WORKER_ID,
                               TPU_NAME, KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS or TPU_CONFIG
                               ("local" unless a TPU is named)
                  19 kubernetes an Indexed Job's pod: KUBERNETES_SERVICE_HOST and
                               JOB_COMPLETION_INDEX set and HOSTNAME "<job>-<index>"
                               (job "worker" = selector job-name=<job>, with follow_jobset:
                               the whole JobSet when the Job is one of a JobSet's; members
                               options.k8s_members, DEFAULT = JOB); every pod has
                               KUBERNETES_SERVICE_HOST, so that alone is not enough
                  20 local     otherwise, so a program runs unchanged on a laptop; but not
                               while a launcher's variable says this process may be one of
                               several (a rank told it is alone hangs its job): that is
                               CRES_ERR_ENVIRONMENT naming the variable, its value and the
                               launcher ($CLUSTER_RESOLVER_BACKEND "local" runs alone). Each
                               says so by being set, or, where marked, by its value: >1 a
                               count (the value's first word), or a list's entries, other
                               than 1; >0 an index other than 0; a value that is no number
                               says so too:
                               - torch.distributed: LOCAL_RANK NODE_RANK
                               - torchrun: GROUP_RANK GROUP_WORLD_SIZE LOCAL_WORLD_SIZE
                                 ROLE_RANK
                               - Kubeflow: PET_NPROC_PER_NODE PET_MASTER_PORT
                               - MPI (PMI): PMI_RANK
                               - Cray PALS: PMI_LOCAL_RANK PALS_RANKID
                               - MPICH Hydra: MPI_LOCALRANKID MPI_LOCALNRANKS>1
                                 HYDRA_HOST_FILE
                               - Open MPI: OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_LOCAL_RANK
                                 OMPI_COMM_WORLD_NODE_RANK OMPI_COMM_WORLD_LOCAL_SIZE>1
                                 OMPI_MCA_orte_default_hostfile
                               - MVAPICH: MV2_COMM_WORLD_RANK MV2_COMM_WORLD_LOCAL_RANK
                                 MV2_COMM_WORLD_LOCAL_SIZE>1
                               - Intel MPI: I_MPI_HYDRA_HOST_FILE
                               - jsrun: JSM_NAMESPACE_RANK
                               - pbsdsh: PBS_VNODENUM
                               - Slurm: SLURM_PROCID SLURM_NTASKS>1 SLURM_JOB_NUM_NODES>1
                                 (an salloc shell)
                               - AWS Batch: AWS_BATCH_JOB_MAIN_NODE_INDEX
                               - TPU multislice: MEGASCALE_SLICE_ID
                               - Kubernetes Indexed Job: JOB_COMPLETION_INDEX
                               - Horovod (horovodrun --gloo): HOROVOD_RANK>0 HOROVOD_SIZE>1
                               - PaddlePaddle: PADDLE_TRAINER_ID>0 PADDLE_TRAINERS_NUM>1
                                 PADDLE_TRAINER_ENDPOINTS>1 PADDLE_GLOBAL_RANK>0
                                 PADDLE_GLOBAL_SIZE>1 PADDLE_NNODES>1
                               - DeepSpeed (launch.py): CROSS_RANK>0 CROSS_SIZE>1 LOCAL_SIZE>1
                               - PAI-DLC: NPROC_PER_NODE>1
                               - Google Cloud Batch: BATCH_TASK_INDEX>0 BATCH_TASK_COUNT>1
                                 BATCH_NODE_INDEX>0
                               - Azure Batch (multi-instance tasks): AZ_BATCH_HOST_LIST>1
                                 AZ_BATCH_NODE_LIST>1 AZ_BATCH_MASTER_NODE
                                 AZ_BATCH_IS_CURRENT_NODE_MASTER CCP_NODES>1
                               - AzureML (MPI jobs): AZ_BATCHAI_MPI_MASTER_NODE
                               - HTCondor (parallel universe): _CONDOR_PROCNO>0
                                 _CONDOR_NPROCS>1
                               - SkyPilot (setup stage): SKYPILOT_SETUP_NODE_RANK>0
                                 SKYPILOT_SETUP_NODE_IPS>1 SKYPILOT_NUM_NODES>1
                               - Kubeflow XGBoost: DMLC_TASK_ID>0 DMLC_NUM_WORKER>1
                               - torchx: TORCHX_ROLE_IDX>0 TORCHX_REPLICA_IDX>0
                               - Determined: DET_KUBERNETES_JOB_PARALLELISM>1
                               - Nomad: NOMAD_ALLOC_INDEX>0 (allocation 0 of several cannot
                                 be told from a group of one: Nomad gives no count)
                               - Metaflow: MF_PARALLEL_NUM_NODES>1 MF_PARALLEL_NODE_INDEX>0
                                 MF_WORLD_SIZE>1
                               - NVIDIA Base Command: NGC_ARRAY_SIZE>1 NGC_ARRAY_INDEX>0
                  The chosen backend's errors stand: a partial environment (WORLD_SIZE and
                  RANK without MASTER_ADDR) is an error, never the next step.
        Options:  backend, else $CLUSTER_RESOLVER_BACKEND, forces one by its name above
                  ("k8s" = "kubernetes"); "off" = local; NULL, "" or "auto" = detect. port
                  goes to local, kubernetes, sagemaker, skypilot, volcano, lws, awsbatch
                  (port) and slurm, mpi, pbs, lsf, sge, flux (port_base); k8s_members to
                  kubernetes (DEFAULT: JOB in an Indexed Job's pod, else LIST); a forced
                  kubernetes outside an Indexed Job lists TF's job-name=tensorflow.
                  tfconfig, local, slurm, mpi, pbs, lsf, sge, flux, sagemaker, vertex,
                  skypilot, volcano, lws, awsbatch, torch, jax, tpu, k8s: pointers to the
                  options of that backend, used when auto picks it, as if it were named (its
                  config NULL = auto's; port or port_base 0 = port above; k8s jobs NULL and
                  members DEFAULT = auto's choice in an Indexed Job's pod; tpu NULL = "local"
                  unless a TPU variable names one); NULL = that backend's defaults. So an
                  option means the same under auto as under its backend; one auto's pick does
                  not read is the caller's to refuse (the CLI: exit 2).
        Own task: the chosen backend's. cres_resolver_name() tells which; config.log why,
                  and the later steps that also applied ("passed over").
        Errors:   another name: CRES_ERR_UNSUPPORTED; a backend left out of the build whose
                  environment is there: CRES_ERR_UNSUPPORTED naming the switch.

      slurm (cres_slurm_options)
        Reads:    once, the job step: SLURM_PROCID, SLURM_STEP_NUM_TASKS,
                  SLURM_STEP_NODELIST (a hostlist, section 8), SLURM_STEP_TASKS_PER_NODE
                  ("2(x3),1"); SLURM_DISTRIBUTION block (default; so are "pack" and
                  "nopack" alone: how many tasks a node takes, which the counts say),
                  cyclic, plane (SLURM_DIST_PLANESIZE per node per round); SLURM_NODEID and
                  SLURM_LOCALID must agree with that placement, SLURM_GTIDS (the own node's ranks,
                  ascending) too, and SLURMD_NODENAME with SLURM_NODEID's node; srun's
                  second names of the step's counts, SLURM_NTASKS, SLURM_NPROCS,
                  SLURM_NNODES and SLURM_STEP_NUM_NODES, must agree when set (each
                  disagreement is CRES_ERR_ENVIRONMENT naming both). Hosts keep Slurm's
                  order. Rank r's address:
                  "<its node>:<port_base + its index among the node's tasks>".
                  Without a step (SLURM_JOB_ID or SLURM_JOBID set: an sbatch script, an
                  salloc shell) this process is none of the job's tasks: the cluster is the
                  job's allocation, the nodes of SLURM_JOB_NODELIST (else SLURM_NODELIST)
                  with SLURM_TASKS_PER_NODE slots each, the job's tasks per node: what an srun
                  without -n starts there, and the slots Open MPI's mpirun gives each node
                  (its ras/slurm reads the same two; SLURM_JOB_CPUS_PER_NODE counts CPUs, not
                  tasks). SLURM_NTASKS (else SLURM_NPROCS) and SLURM_JOB_NUM_NODES (else
                  SLURM_NNODES) must agree when set. There is no own task (as pbs, lsf, sge
                  in a job script): formats that need one refuse. A SLURM_PROCID above 0
                  without a step is an error: a task whose step variables are missing. A
                  heterogeneous job's script (SLURM_HET_SIZE, before Slurm 20.02
                  SLURM_PACK_SIZE, above 1), whose SLURM_JOB_NODELIST is its first component
                  alone, is CRES_ERR_UNSUPPORTED naming it; a step names its nodes whole,
                  whichever components it runs on, and is read as any other.
        Options:  jobs: 1..1024 {job, count >= 0}, distinct names, taking the ranks in order,
                  "chief" first, then by name ({worker 6, ps 2}: ps ranks 0-1, worker 2-7),
                  counts adding up to the step's tasks (default one "worker" job of all);
                  port_base 1..65535 (0 = 8888; the highest port must fit too).
                  GPUs: $CUDA_VISIBLE_DEVICES (ids, UUIDs or MIG names of letters, digits
                  and -_:./; unset, empty, "NoDevFiles" or "-1" = none) is split among the
                  node's tasks only when it is the node's list: the caller says so
                  (gpus_per_node: the node's GPUs, 0 = the list's length; gpus_per_task: each
                  task's, one count for all, at most the GPUs over the most tasks on a node;
                  at most 4096), or the launcher does (slurm: SLURM_GPUS_ON_NODE, the step's
                  GPUs on the node, equals the list's length and nothing binds GPUs to
                  tasks). Without gpus_per_task each node's GPUs are shared among that node's
                  tasks, g = GPUs / its tasks (srun -N2 -n3: node01's two tasks 2 each, the
                  lone task on node02 all 4; a node of more tasks than GPUs: none assigned,
                  its tasks keep the list). Task k of a node then gets devices k*g ..
                  k*g+g-1: ids from the list ("4,5,6,7": "4,5" and "6,7"; of a list longer
                  than gpus_per_node its first ids), numbered from 0 without a list; a list
                  shorter than gpus_per_node, or not one of ids, is CRES_ERR_ENVIRONMENT
                  naming both: it cannot be the node's. cres_visible_devices() gives them and
                  cres_num_accelerators() ("GPU") counts g (a task's: with no own task,
                  CRES_ERR_NOT_FOUND as for its devices); config.log says the own node's
                  share at CRES_LOG_INFO. A list the launcher bound to this task is passed on
                  unchanged: cres_visible_devices() gives "" (assigns none: the task keeps
                  what it has) and cres_num_accelerators() its length. Slurm binds for srun
                  --gpus-per-task, --ntasks-per-gpu and any --gpu-bind / --tres-bind gres/gpu
                  but none; its tasks see that as a list shorter than SLURM_GPUS_ON_NODE, or
                  SLURM_GPUS_PER_TASK, SLURM_NTASKS_PER_GPU, SLURM_NTASKS_PER_TRES,
                  SLURM_GPU_BIND, SLURM_TRES_BIND (gres/gpu:TYPE) or SLURM_TRES_PER_TASK
                  (gres/gpu) set. --gpu-bind=none (SLURM_GPU_BIND or SLURM_TRES_BIND "none")
                  asks that every task see all the step's GPUs: that list is left whole
                  too, not shared out. ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES,
                  ZE_AFFINITY_MASK or GPU_DEVICE_ORDINAL listing fewer devices than
                  SLURM_GPUS_ON_NODE or than CUDA's list show a binding too (Slurm writes
                  one list into each gres.conf names; wrapper scripts narrow them). A list
                  nobody speaks for (no SLURM_GPUS_ON_NODE, or a list longer than it) is
                  left as it is, as a bound one; config.log says why at CRES_LOG_INFO.
                  CRES_NO_GPUS = none.
        Own task: the job and index of SLURM_PROCID.
        Errors:   CRES_ERR_ENVIRONMENT naming the variable (missing, inconsistent counts, a
                  placement that disagrees) or the option (jobs not adding up to the tasks,
                  a node's tasks needing ports past 65535 from port_base); arbitrary and
                  other distributions CRES_ERR_UNSUPPORTED; more GPUs per task than a node
                  has, gpus_per_node with a list bound to the task (it cannot be split as
                  the node's) or above the list's length, a gpus_per_task other than a bound
                  list's length, a gpus_per_node other than SLURM_GPUS_ON_NODE:
                  CRES_ERR_ENVIRONMENT naming both.
      mpi (cres_mpi_options)
        Reads:    rank and size from the first family set: Open MPI OMPI_COMM_WORLD_{RANK,
                  SIZE,LOCAL_RANK,LOCAL_SIZE}; MVAPICH MV2_COMM_WORLD_*; MPICH / Intel MPI
                  PMI_RANK, PMI_SIZE (MPI_LOCALRANKID, MPI_LOCALNRANKS; Cray PALS's
                  PMI_LOCAL_RANK, PMI_LOCAL_SIZE; a local rank without its size is read
                  too, below the world size); PMIx PMIX_RANK. Every other family's
                  rank and size that is set (jsrun's JSM_NAMESPACE_RANK and _SIZE too) must
                  be the same, or CRES_ERR_ENVIRONMENT names both. Hosts from the first
                  source that knows: (1) options.hostfile (at create): Open MPI "host
                  slots=N" (max_slots ignored, '#' comments, a host named again adds
                  slots) or MPICH "host:N"; ranks fill each host's slots in file
                  order (mpirun's default; more ranks than slots is an error), or go
                  round-robin over the hosts with room when Open MPI mapped or ranked by node
                  (OMPI_MCA_rmaps_base_mapping_policy / _ranking_policy "node"; policies
                  within a node count as slot); (2) srun started the ranks (SLURM_PROCID and
                  SLURM_STEP_NUM_TASKS equal rank and size): the Slurm step, as slurm reads
                  it; (3) the scheduler's allocation, filled as (1): PE_HOSTFILE (Grid
                  Engine), PBS_NODEFILE, LSB_DJOB_RANKFILE or LSB_MCPU_HOSTS (LSF), or
                  OMPI_MCA_orte_default_hostfile (Kubeflow's MPIJob: /etc/mpi/hostfile);
                  config.log says which; (4) every rank on this host: options.hostname,
                  else $PMIX_HOSTNAME, else localhost; (5) mpirun inside a Slurm
                  allocation: its daemons' step (SLURM_STEP_NODELIST, own node SLURM_NODEID),
                  local-size ranks each, in Open MPI's ranking order.
        Options:  hostfile, hostname; jobs, port_base, GPUs as slurm. mpirun and mpiexec say
                  nothing of GPUs: a list is the node's only when the caller says so, or in
                  a Slurm job when Slurm does (srun's own ranks, or the step of mpirun's
                  daemons, whose ranks share their node's list); under jsrun
                  (JSM_NAMESPACE_RANK) it is the resource set's: bound, as in lsf.
        Own task: the job and index of the MPI rank.
        Errors:   no source of hosts: CRES_ERR_ENVIRONMENT asking for the hostfile; a local
                  rank or size that disagrees with the placement: CRES_ERR_ENVIRONMENT;
                  ppr, seq, rankfile and other policies: CRES_ERR_UNSUPPORTED.
      pbs, lsf, sge, flux (cres_pbs_options, ...: slurm's jobs, port_base and GPUs)
        Reads:    once, the scheduler's allocation, hosts in its order, a slot per task,
                  ranks filling each host's slots in turn:
                  pbs  PBS_NODEFILE, a line per slot; under Cray PALS a line per node
                       (Polaris, Aurora) holds mpiexec --ppn's ranks each: PALS_LOCAL_SIZE
                       of a full node, and a last node fewer (-n 6 --ppn 4: 4 and 2, which
                       its ranks' PALS_RANKID, PALS_NODEID and PALS_LOCAL_RANKID show).
                  lsf  LSB_DJOB_RANKFILE (a line per slot), else LSB_MCPU_HOSTS ("hA 4 hB 4");
                       a first host of one slot is the launch node and left out when
                       CSM_ALLOCATION_ID is set (IBM CSM: Summit, Sierra), or under jsrun
                       when the slots are JSM_NAMESPACE_SIZE + 1. Under jsrun (which names
                       no slots) JSM_NAMESPACE_LOCAL_SIZE ranks on every host, packed in host
                       order, when JSM_NAMESPACE_SIZE is the hosts times it and each has the
                       slots (jsrun -r; a Summit node has 42 slots, a job often 6 ranks on
                       it); else the slots must be JSM_NAMESPACE_SIZE: any other count is
                       CRES_ERR_ENVIRONMENT naming both (mpirun fills slots in order, so
                       it may use fewer); the mpi backend applies the same rule, and its
                       world size must equal jsrun's.
                  sge  PE_HOSTFILE ("host slots queue processors"); NSLOTS and NHOSTS
                       must agree.
                  flux only options.hostfile (one host per line, or "host slots=N" /
                       "host:N"; or what `flux hostlist` prints, one line of a hostlist,
                       "fluke[0-3]" or blank-separated hosts, read as section 8's, a slot a
                       host, a host named twice an error): Flux tells a task no hosts, so
                       without it CRES_ERR_ENVIRONMENT names the option. FLUX_JOB_NNODES must be its
                       host count, and a FLUX_JOB_SIZE it divides gives each that many;
                       any other size fills the slots, which must use every node (Flux
                       runs a task on each, so FLUX_JOB_NNODES above the size is an error).
                       Without FLUX_TASK_RANK but with FLUX_JOB_ID, or FLUX_ENCLOSING_ID (a
                       `flux batch` script, a `flux alloc` shell: the broker gives their
                       initial program that instead of the job's variables), the file is
                       the allocation (FLUX_JOB_SIZE, when set, placed on it as above).
                  GPUs: only the caller says a list is the node's (gpus_per_node,
                  gpus_per_task; see slurm). pbs: PBS does not say, and under Cray PALS a
                  wrapper script may have bound each rank's list. lsf: jsrun gives each
                  resource set its own list (bound); outside jsrun LSF does not say. sge:
                  Grid Engine does not say. flux: the shell's gpu-affinity option gives the
                  node's list ("on") or each task's ("per-task", "map:"), and no variable
                  tells a task which. A list not said to be the node's is left as it is.
        Own task: the rank: pbs PALS_RANKID of PMI_SIZE (Cray PALS; PALS_NODEID,
                  PALS_LOCAL_RANKID, PALS_LOCAL_SIZE checked), else PBS_VNODENUM (pbsdsh:
                  the slot's line; Torque's job script has it 0 beside PBS_TASKNUM 1, the
                  script being the job's task 1: no task there); lsf jsrun's
                  JSM_NAMESPACE_RANK of _SIZE (_LOCAL_RANK, _LOCAL_SIZE checked); then, in
                  pbs, lsf and sge, an MPI launcher's rank
                  (Open MPI, MVAPICH, MPICH; as the mpi backend reads and places them:
                  local rank and size checked, Open MPI's mapping followed; PMIx's rank
                  without a world size is CRES_ERR_ENVIRONMENT); flux FLUX_TASK_RANK of
                  FLUX_JOB_SIZE (FLUX_TASK_LOCAL_ID checked). Without one (the job script)
                  the cluster is the whole allocation and there is no own task: never "the
                  only task", which it is not (slurm outside a step likewise).
        Errors:   a missing, unreadable or empty file, a line that is not "host", "host
                  slots=N" or "host:N" (PE_HOSTFILE: fewer than two fields), an odd
                  LSB_MCPU_HOSTS or one with a count that is not a number, a rank past the
                  slots, a placement the launcher contradicts: CRES_ERR_ENVIRONMENT naming
                  the file or variable and the line.
      sagemaker (cres_sagemaker_options)
        Reads:    once, the hosts (a JSON list): options.hosts, else $SM_HOSTS, else "hosts"
                  of the resource config (resource_config, default /opt/ml/input/config/
                  resourceconfig.json); this host: current_host, else $SM_CURRENT_HOST,
                  else "current_host". The file is read when one of them is missing and
                  whenever resource_config is given; its keys, when present, must agree
                  with what was used (the same hosts in any order; the same current host).
                  Hosts in natural order (algo-2 before
                  algo-10), job "worker" (job_name), port 2223 (1..65535). No rpc layer.
                  instance_groups (heterogeneous clusters): a job per instance group instead,
                  named by its instance_group_name, its hosts in natural order. The groups:
                  options.instance_groups_dict, else $SM_INSTANCE_GROUPS_DICT ({"train":
                  {"instance_group_name": "train", "hosts": [...]}, ...}; the inner name may
                  be left out, else it must be the key), else the resource config's
                  "instance_groups" list. The hosts list is then optional; when known it
                  must hold the groups' hosts exactly. The current group
                  (current_instance_group, else $SM_CURRENT_INSTANCE_GROUP, else
                  "current_group_name") is checked when known. Ranks order jobs "chief"
                  first, then by name (section 8): rank 0 is the first group's first host.
                  SM_INSTANCE_GROUPS, SM_CURRENT_INSTANCE_GROUP_HOSTS and SM_IS_HETERO repeat
                  what is read; SM_DISTRIBUTION_INSTANCE_GROUPS is not read (every group is a
                  job).
        Own task: the current host's index (instance_groups: in its group's job).
        Errors:   an empty list, a host named twice or longer than CRES_MAX_NAME_LENGTH, a
                  current host not listed: CRES_ERR_ENVIRONMENT (TF: an empty cluster); a
                  resource_config given that cannot be read, or that disagrees with the
                  variables (it is read whenever given): CRES_ERR_ENVIRONMENT naming it.
                  instance_groups: CRES_ERR_ENVIRONMENT naming the variable or file and the
                  field for no group, a group named twice, with an empty name or no host, a
                  host in two groups, groups that are not the hosts list, a current host in
                  no group or in another than the current group, a malformed document;
                  job_name with it, or its two strings without it: _INVALID_ARGUMENT.

      vertex (cres_vertex_options)
        Reads:    once, options.cluster_spec, else $CLUSTER_SPEC: Vertex AI's description,
                  TF_CONFIG's shape with worker pools for jobs ({"cluster": {"workerpool0":
                  ["h:2222"], "workerpool1": [...], ...}, "task": {"type": "workerpool1",
                  "index": 0}, "environment": "cloud", "job": ...}); jobs named as given
                  (workerpool0 first: rank 0 is the primary replica). No rpc layer.
        Own task: task.type / task.index. Its launch counts pools 0 and 1 (the primary and the
                  workers): pool 2 (parameter servers, Reduction Server) and pool 3
                  (evaluators) take no rank, their tasks' launch is CRES_ERR_NOT_FOUND.
        Errors:   CRES_ERR_ENVIRONMENT prefixed "CLUSTER_SPEC:": unset, blank or without a
                  pool, not JSON, a pool that is not a list, a task outside the cluster, and
                  TF_CONFIG's errors.
      skypilot (cres_skypilot_options)
        Reads:    once, SKYPILOT_NODE_IPS (one address per line, the head node first; a
                  trailing newline, \r and blanks around an address are fine),
                  SKYPILOT_NODE_RANK, SKYPILOT_NUM_NODES (must be the count when set),
                  SKYPILOT_NUM_GPUS_PER_NODE (accelerators "GPU" per task). One task per
                  node, "<ip>:<port>" (port 1..65535, 0 = 8470), job "worker" (job_name).
        Own task: SKYPILOT_NODE_RANK.
        Errors:   an empty list or line, a duplicate address, a rank past the list:
                  CRES_ERR_ENVIRONMENT naming the variable.
      volcano (cres_volcano_options)
        Reads:    once, every VC_<TASK>_HOSTS of the environment (config.env_list): a comma
                  list of "<job>-<task>-<i>.<job>" per task, which Volcano's svc plugin
                  sets; a job per task, named <task> in lower case ("-" in a task name
                  reads as "_", as Volcano writes it); VC_<TASK>_NUM must be the count.
                  Addresses "<host>:<port>" (port, 0 = 8470). No rpc layer.
        Own task: the host whose first label is hostname (default $HOSTNAME); VC_TASK_INDEX
                  (else VK_TASK_INDEX), when set, must be its index; when both are set
                  (Volcano's env plugin sets both) they must agree.
        Errors:   no VC_*_HOSTS, an empty list or entry, a duplicate host, a host name in
                  no list, an index that disagrees: CRES_ERR_ENVIRONMENT naming them.
      lws (cres_lws_options)
        Reads:    once, LeaderWorkerSet's LWS_LEADER_ADDRESS ("<lws>-<group>.<subdomain>.
                  <ns>", a DNS name), LWS_GROUP_SIZE, LWS_WORKER_INDEX (0 = the leader).
                  Task 0 is the leader's address, task i the leader's first label + "-i"
                  and the rest unchanged (the names LWS gives its pods); port (0 = 8470);
                  job "worker" (job_name).
        Own task: LWS_WORKER_INDEX; hostname (default $HOSTNAME), when set, must be the
                  first label of that task's address, else CRES_ERR_ENVIRONMENT naming both.
                  LWS's TPU variables, when set, must be the group: TPU_WORKER_HOSTNAMES
                  LWS_GROUP_SIZE hosts and TPU_WORKER_ID LWS_WORKER_INDEX, else
                  CRES_ERR_ENVIRONMENT (a leader without TPUs: the TPU slice, JAX's
                  processes, is not the group; the tpu backend reads the slice).

      Coordinator-only sources (torch, jax, awsbatch; tpu with several slices) name the
      coordinator, the size and the own rank, never every address. cres_resolve() is
      CRES_ERR_INCOMPLETE naming the source; cres_launch() gives the numbers the variables
      give (the rest CRES_UNKNOWN); cres_master() the coordinator's "host:port" (IPv6 in
      brackets), for the own task or task "worker" 0, any other task CRES_ERR_INCOMPLETE.
      One job "worker", own task index = rank (torch: none for a node's launch, below); an
      override of the id changes the rank and makes local and node numbers unknown. No rpc
      layer (tpu: "grpc"). Every variable read is checked: missing, empty, not an integer,
      out of range, or against its companions (a rank not below its size, local and node
      ranks likewise, a local or node count above the world size): CRES_ERR_ENVIRONMENT
      naming the variables and their values ("torch: RANK="1" and WORLD_SIZE="4" are set,
      MASTER_ADDR is not").
      torch (cres_torch_options)
        Reads:    (1) TORCHELASTIC_RUN_ID set (torchrun's worker): MASTER_ADDR, MASTER_PORT,
                  RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK (node rank),
                  GROUP_WORLD_SIZE (nodes), all required. (2) Else MASTER_ADDR, MASTER_PORT,
                  RANK and WORLD_SIZE (Ray Train, AzureML, Kubeflow's PyTorchJob), with
                  LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK or NODE_RANK, GROUP_WORLD_SIZE
                  when set. Kubeflow's PET_* set too describe the same pod: RANK =
                  PET_NODE_RANK, the same master, and with PET_NPROC_PER_NODE unset, 1 or a
                  keyword ("auto", "gpu", "cpu", which the training operator counts as 1)
                  WORLD_SIZE = PET_NNODES, a process per pod; with a count above 1, WORLD_SIZE
                  = PET_NNODES x PET_NPROC_PER_NODE: a node's launch. (3) Else Kubeflow's
                  PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR, PET_MASTER_PORT (Kubeflow
                  Trainer): a torchrun per node starting PET_NPROC_PER_NODE processes; unset
                  or 1, that process is the node (world size = nodes, local rank 0 of 1);
                  else a node's launch, its world size the nodes x the count (unknown for a
                  keyword: torchrun counts the devices when it starts).
                  A node's launch: this process is the node's torchrun, whose workers do not
                  exist yet. cres_launch() gives num_nodes, node_rank, local_world_size and
                  world_size (as known) and CRES_UNKNOWN for rank and local_rank; there is
                  no own task, and an override needs a known world size (else
                  CRES_ERR_NOT_FOUND). --format torchrun-node is what such a pod runs.
                  MASTER_ADDR is a host (IPv6 with or without brackets), never "host:port".
                  NPROC_PER_NODE other than 1 beside (2) is Alibaba PAI-DLC's, whose
                  WORLD_SIZE counts nodes and RANK is the node's: CRES_ERR_ENVIRONMENT
                  naming it until PAI-DLC has a backend.
        Errors:   PET_NNODES an elastic range ("1:4"): CRES_ERR_UNSUPPORTED. A node's
                  launch whose WORLD_SIZE is not PET_NNODES x PET_NPROC_PER_NODE, or beside
                  a LOCAL_RANK, or a LOCAL_WORLD_SIZE, GROUP_WORLD_SIZE, GROUP_RANK or
                  NODE_RANK other than PET_*'s: CRES_ERR_ENVIRONMENT; a world above INT_MAX:
                  CRES_ERR_LIMIT. Numbers that
                  no placement holds, CRES_ERR_ENVIRONMENT naming them: each rank below its
                  count, and (every node a block of consecutive ranks, at least one, any
                  number per node) RANK less LOCAL_RANK at least the node rank, 0 on node
                  0, and with LOCAL_WORLD_SIZE leaving a rank for each later node.
      jax (cres_jax_options)
        Reads:    JAX_COORDINATOR_ADDRESS ("host:port", "[v6]:port"; no port: then
                  JAX_COORDINATOR_PORT), JAX_NUM_PROCESSES, JAX_PROCESS_ID (Kubeflow
                  Trainer's JAX runtime; --format jax). An IPv6 address without brackets
                  is an error (its last group would read as the port).
      awsbatch (cres_awsbatch_options)
        Reads:    AWS_BATCH_JOB_NODE_INDEX, AWS_BATCH_JOB_NUM_NODES,
                  AWS_BATCH_JOB_MAIN_NODE_INDEX, and the main node's
                  AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS, which AWS Batch sets on the
                  other nodes only: on the main node the coordinator is main_host
                  (default "localhost"). One process per node; the main node is rank 0, the
                  others follow in node order. port 1..65535 (0 = 29500, torchrun's).

      kubernetes (cres_k8s_options)
        Reads:    at every resolve, the pods of label selectors, a job per selector
                  ({"worker", "job-name=trainer"}; repeat a job for several; default TF's
                  {"worker", "job-name=tensorflow"}), from options.server (http:// for
                  `kubectl proxy`; https:// with token and CA), else a kubeconfig read at
                  create as kubectl reads it: options.kubeconfig alone, else the files of
                  $KUBECONFIG (':', on Windows ';'; missing ones skipped), else
                  $HOME/.kube/config; a cluster, user or context whole from the first file
                  that names it; the context options.context, else the first
                  current-context (none: in cluster when KUBERNETES_SERVICE_HOST is set, else
                  an error); relative paths against the file's directory. Cluster: server,
                  certificate-authority(-data) (its CERTIFICATE blocks that client-go would
                  use go to the transport, the rest of the text not; an empty file is no CA:
                  the transport's default ones, as kubectl), insecure-skip-tls-verify (WARN
                  logged), tls-server-name, proxy-url. User: token, tokenFile (read at each
                  resolve; readable, it wins over token), client-certificate(-data) and
                  client-key(-data), username/password, as, as-groups, as-uid, exec (v1,
                  v1beta1: run through config.exec with args, env and KUBERNETES_EXEC_INFO;
                  its token or certificate kept until expirationTimestamp (RFC 3339 with its
                  offset, as Go's time.RFC3339), checked before each request; run once more
                  on a 401; its stderr to the log), auth-provider
                  oidc (id-token). No credential goes to an http:// server (impersonation
                  headers do, as with kubectl). Else in cluster:
                  KUBERNETES_SERVICE_HOST / _PORT (1..65535), the service account's token
                  (read at every resolve: bound tokens rotate), ca.crt and namespace in
                  /var/run/secrets/kubernetes.io/serviceaccount/. Pages of page_size (0 =
                  500) with limit/continue; a 410 Gone restarts the list (three times at
                  most). Members: Running pods that are not terminating; a pod matched twice
                  in a job counts once. Tasks 0..n-1 by Indexed Job completion index when
                  every pod has one, else by name in natural order. JobSet pods (label
                  jobset.sigs.k8s.io/jobset-name) go by their Job's jobset.sigs.k8s.io/
                  job-global-index (label, else annotation) first: completion indices
                  restart in every Job of a JobSet. A job's pods must all be of one JobSet
                  (name and namespace) or all of none.
        Options:  token, token_file (not both; files up to 64 KiB), ca_file (with a
                  kubeconfig they replace its user's credentials and its CA);
                  namespace_name, else the kubeconfig context's, else namespace_file (up to
                  253 bytes; none with options.server), else "default"; kubeconfig, context;
                  all_namespaces; address CRES_K8S_POD_IP (default), CRES_K8S_HOST_IP
                  (TF's), CRES_K8S_DNS (hostname.subdomain.namespace.svc.cluster_domain,
                  "cluster.local"; the pod IP for a pod without both); IPv6 in brackets;
                  port 1..65535 (0 = 8470); wait_ms: poll a not-ready list (after 0.5, 1, 2,
                  4, then every 5 s; each poll bounded by resolve_timeout_ms). follow_jobset
                  (auto sets it for an Indexed Job's pod): a job whose pods include the own
                  pod, when that pod carries jobset.sigs.k8s.io/jobset-name, is listed again
                  as that whole JobSet (selector jobset.sigs.k8s.io/jobset-name=<name>, in
                  the own pod's namespace) instead; an own pod not among them leaves the job
                  as its selectors found it. config.log INFO says which. The own pod is
                  looked for in the list, by name or spec.hostname, not read with GET
                  pods/$HOSTNAME: that needs the "get" verb too, and an Indexed Job pod's
                  name is "<job>-<index>-<random>", only its hostname is "<job>-<index>".
                  members: CRES_K8S_MEMBERS_LIST (DEFAULT) lists; CRES_K8S_MEMBERS_JOB
                  (auto's choice in an Indexed Job's pod) names the members without a list:
                  one GET of the own Job (apis/batch/v1, name = hostname less
                  "-$JOB_COMPLETION_INDEX"), and when it carries jobset.sigs.k8s.io/
                  jobset-name and follow_jobset is set or the selector is that JobSet's,
                  one GET of the JobSet (apis/jobset.x-k8s.io/v1alpha2); members
                  "<job>-<i>.<subdomain>.<namespace>.svc.<cluster_domain>:<port>" for i <
                  completions, a JobSet's Jobs "<js>-<rjob>-<j>" in replicated-job order
                  (the list's order), Running or not (no wait, no CRES_ERR_NOT_READY).
                  Needed: Indexed, parallelism == completions, the pod template's subdomain
                  set and hostname not, hostnames that are DNS labels, a "job-name=X"
                  selector naming the own Job, both GETs answered 200, in a JobSet DNS
                  hostnames on and the own Job's subdomain the JobSet's
                  (network.subdomain, else its name), every replicated job as above, the
                  own Job one of them. Else config.log INFO "listing pods, since <why>"
                  and the list answers. One job of one selector, in the own namespace; not
                  with all_namespaces or address CRES_K8S_HOST_IP (CRES_ERR_INVALID_ARGUMENT).
        Own task: the pod whose name or spec.hostname is options.hostname ($HOSTNAME; in
                  two jobs: the later job), after a resolve.
        Errors:   a pod not Running, a Running pod without the chosen IP, two pods of one
                  Job (one job-global-index in a JobSet) with one completion index:
                  CRES_ERR_NOT_READY naming them (unless wait_ms); a completion index or
                  job-global-index not 0..INT_MAX, a JobSet pod without job-global-index
                  (a JobSet release before August 2024), a JobSet name to follow that is no
                  label value: CRES_ERR_UNEXPECTED_RESPONSE naming the pod and label; pods
                  of two JobSets, or of a JobSet and none, in one job: CRES_ERR_CONFLICT
                  (and members JOB: JOB_COMPLETION_INDEX not below the Job's completions;
                  a count that is no count, an answer naming another object, a JobSet
                  without replicatedJobs or with one named twice: errors; a Job or JobSet
                  over CRES_MAX_K8S_PODS pods, or over 1024 replicated jobs: CRES_ERR_LIMIT); a
                  repeated continue token or CRES_MAX_K8S_PAGES pages: an error; 401 and 403
                  say what to fix (the token; the RBAC rule needed). Kubeconfig errors are
                  CRES_ERR_ENVIRONMENT naming file, stanza and field: a path and its -data
                  both set, a certificate without its key, two authentication methods, an
                  undefined context, cluster or user, a cluster without server, a file it
                  names that cannot be read, PEM that client-go refuses at load (read as Go's
                  pem.Decode reads it: a CA needs a CERTIFICATE block without headers whose
                  body is one whole DER SEQUENCE; a client certificate its first CERTIFICATE
                  block, a key its first PRIVATE KEY or "<algorithm> PRIVATE KEY" block,
                  whole; the rest of the DER, and whether the key fits the certificate, the
                  TLS library checks at the first request), as-groups, as-uid or
                  as-user-extra without as (as-user-extra with it: not supported), exec
                  without command or apiVersion (v1: interactiveMode; Always is refused: no
                  terminal), auth-provider gcp or azure (removed from kubectl; use their
                  exec plugins), a YAML file without CLUSTER_RESOLVER_USE_YAML
                  (CRES_ERR_UNSUPPORTED). An exec plugin that
                  cannot start, exits non-zero (its last stderr line quoted) or prints no
                  ExecCredential of its apiVersion: CRES_ERR_ENVIRONMENT; one that outlives
                  the resolve's time: CRES_ERR_TIMEOUT; over 1 MiB of output: CRES_ERR_LIMIT.
      Google Cloud (gce, tpu) share the metadata server: http://$GCE_METADATA_HOST, else
                  $GCE_METADATA_IP, else metadata.google.internal (or metadata_url), with
                  "Metadata-Flavor: Google"; at most 2 s (less if timeout_ms is) and one retry
                  (none with max_retries -1) per lookup. A server that gives no status line
                  means we are off Google Cloud: CRES_ERR_ENVIRONMENT, within seconds; one that
                  has answered in this resolve and then does not is a network fault.
                  Credentials, google-auth's chain (Application Default Credentials):
                  options.token, token_file (read at every resolve); else a credentials file:
                  options.credentials_file, else $GOOGLE_APPLICATION_CREDENTIALS (either
                  missing: CRES_ERR_ENVIRONMENT naming it; "" = unset), else gcloud's
                  $CLOUDSDK_CONFIG/application_default_credentials.json (with CLOUDSDK_CONFIG
                  set $HOME is not read), ~/.config/gcloud/... (%APPDATA%\gcloud\... on
                  Windows), absent: skipped; else the metadata server's token, once per
                  resolve. A file is read at every resolve (64 KiB at most), its type:
                  authorized_user (gcloud auth application-default login): the refresh-token
                  grant to its token_uri, else https://oauth2.googleapis.com/token;
                  service_account (a key file): a JWT (RS256, kid private_key_id, iss
                  client_email, aud token_uri, scope cloud-platform, exp iat + 3600) signed by
                  config.sign, else libcrypto with CLUSTER_RESOLVER_USE_OPENSSL, else
                  CRES_ERR_UNSUPPORTED naming both; impersonated_service_account: its
                  source_credentials (either type), then POST service_account_impersonation_url
                  (IAM generateAccessToken; delegates, cloud-platform, 3600s). Any other type
                  (external_account, ...): CRES_ERR_UNSUPPORTED naming it and --token-file,
                  before any request. token_uri and the impersonation URL: https (system CA
                  store), or http to localhost, 127.x.y.z or [::1] only. A file's token is kept
                  across resolves until 5 minutes before it expires (the file unchanged); a 401
                  from the API gets a new one and one more try. The token endpoint's 400/401
                  (invalid_grant: an expired or revoked login): CRES_ERR_ENVIRONMENT quoting
                  its error and error_description and naming the fix (gcloud auth
                  application-default login; for a key, a new key); other statuses:
                  CRES_ERR_HTTP_STATUS. A file's quota_project_id goes in x-goog-user-project.
                  config.log INFO names the source, path and account; no refresh token, key,
                  assertion or access token is ever logged or put in a message.
                  Project: options (TPU: also TPU_CONFIG), else $GOOGLE_CLOUD_PROJECT,
                  $CLOUDSDK_CORE_PROJECT, the file's project_id, its quota_project_id, else the
                  metadata server (project/project-id); zone: options, else the metadata
                  server (instance/zone). Off Google Cloud, what is missing is named:
                  CRES_ERR_ENVIRONMENT "no project: pass options.project (--project)...", "no
                  zone...", "no credentials: set GOOGLE_APPLICATION_CREDENTIALS...". The
                  Compute and Cloud TPU APIs are HTTPS with the system CA store, or ca_file (for a
                  compute_url / tpu_url behind a private CA; either must be http:// or
                  https:// and a host, else CRES_ERR_INVALID_ARGUMENT). Project, zone, region,
                  group and TPU names must be Google resource names (1..128 of
                  [A-Za-z0-9-_.:], a letter or digit first): CRES_ERR_INVALID_ARGUMENT from
                  options, else _ENVIRONMENT or _UNEXPECTED_RESPONSE. 401 and 403 quote
                  Google's message and name the permission needed.
      gce (cres_gce_options)
        Reads:    the RUNNING instances of a zonal or regional (region) instance group
                  (required): listInstances (paged), then one list of each member zone's
                  RUNNING instances with a partial response, joined by name; never a request
                  per instance. Address networkInterfaces[0].networkIP; order by name,
                  naturally; an empty group is an empty job.
        Options:  job_name ("worker"), port (8470), compute_url
                  (https://compute.googleapis.com/compute/v1), instance_name;
                  credentials_file, token, token_file (above).
        Own task: instance_name, else the metadata instance/name when the metadata server
                  is known to be there (named, or it gave the token): a 404 leaves it
                  unknown, any other failure fails the resolve.
        Errors:   a member not RUNNING in its zone's list: CRES_ERR_NOT_READY.
      tpu (cres_tpu_options)
        Reads:    options.tpu, else "local" when TPU_PROCESS_ADDRESSES or TPU_WORKER_HOSTNAMES
                  is set (GKE's and KubeRay's webhooks set TPU_NAME beside them), else
                  $KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS, $TPU_NAME, $TPU_CONFIG
                  ({"tpu_node_name", "project", "zone"}). "grpc://h:p,grpc://h2:p" (or any
                  name with ':') is an endpoint list used as is (IPv6 in brackets, port 8470
                  when missing; no API call). A name goes to the Cloud TPU API (tpu_url
                  https://tpu.googleapis.com; api_version "v2" for TPU VMs, "v1" for TPU
                  nodes): GET .../projects/P/locations/Z/nodes/NAME; its networkEndpoints
                  are the tasks, in API order. "local" is this TPU VM: workers from
                  $TPU_PROCESS_ADDRESSES ("host:port" per process), else
                  $TPU_WORKER_HOSTNAMES, else the metadata attributes
                  worker-network-endpoints ("ip,ip" or "name:uid:ip,...") and
                  agent-worker-number; with neither, an empty cluster and master "" (TF's),
                  unless TPU_WORKER_ID is set: then CRES_ERR_ENVIRONMENT.
                  GKE multislice (MEGASCALE_NUM_SLICES above 1) is coordinator-only (as
                  torch below): the variables name this slice's workers only. Rank =
                  MEGASCALE_SLICE_ID x workers per slice + TPU_WORKER_ID; the coordinator is
                  MEGASCALE_COORDINATOR_ADDRESS's host at port 8482 (JAX's); job "worker".
                  A slice id or coordinator without MEGASCALE_NUM_SLICES, a slice id other
                  than 0 of one slice, and TPU_PROCESS_ADDRESSES whose count is not a
                  multiple of TPU_WORKER_HOSTNAMES' (both set) are CRES_ERR_ENVIRONMENT.
        Options:  job_name ("worker"); coordinator_name with coordinator_address adds a
                  one-task job; allow_unhealthy; accelerators_per_host (0 = from the type);
                  credentials_file, token, token_file (as gce).
        Own task: job_name, $TPU_WORKER_ID (below the worker count), else the metadata
                  agent-worker-number, else 0 for a single worker (TF's); with several workers
                  and neither, none (every host would claim rank 0).
        Accelerators: "TPU" per host from the accelerator type: v2-N, v3-N 8 (N if
                  smaller); v4-N, v5p-N 4 (N/2 if smaller: N counts TensorCores);
                  v5litepod-N, v5e-N, v6e-N: N up to 8, else 4; others need
                  accelerators_per_host, else CRES_ERR_UNSUPPORTED until a resolve has seen
                  a known type.
        Errors:   a state not READY or health not HEALTHY (unless allow_unhealthy):
                  CRES_ERR_NOT_READY, PREEMPTED and TERMINATED reported as never recovering;
                  another api_version: CRES_ERR_INVALID_ARGUMENT.

   8. LAUNCHER OUTPUT AND SLURM HOSTLISTS -------------------------------------------------
      Global ranks order all tasks: the job "chief" first, then the others by name, each by
      task index; a job "evaluator" takes none (TF runs it outside the cluster: its task's
      launch is CRES_ERR_NOT_FOUND, its hosts are no hostfile's). Rank 0 is the coordinator
      (torchrun's MASTER_ADDR, JAX's coordinator);
      TensorFlow's master (cres_master) is the own task's session target, another thing.
      cres_launch(r, &info, err)  the launch info of the own task (none: CRES_ERR_NOT_FOUND):
               world_size, rank, local_rank and local_world_size (tasks whose host part is
               the same string), node_rank and num_nodes (hosts in the order of their first
               rank), and rank 0's master_address (as in the spec), master_host (IPv6
               without brackets) and master_port (CRES_UNKNOWN without one). A node's
               launcher (torch: the torchrun that starts the node's workers) answers without
               an own task: rank and local_rank CRES_UNKNOWN, the node's numbers known. A
               backend's launch entry answers when it has one (coordinator-only sources: no
               resolve; tpu: rank 0 at JAX's port 8482, as across slices, since 8470 and
               8476 are the TPU's own); else it resolves and reads the spec. Then what the
               environment sets explicitly applies, cres_launch_apply_env(r, &info, err):
               a coordinator it names is kept as given (MASTER_ADDR and MASTER_PORT, either
               alone; else JAX_COORDINATOR_ADDRESS; both kinds must name one), as Lightning
               reads them under Slurm and Volcano's pytorch plugin sets them; every size or
               rank it sets (WORLD_SIZE, RANK, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK,
               NODE_RANK, GROUP_WORLD_SIZE, JAX_NUM_PROCESSES, JAX_PROCESS_ID) must equal the
               answer's when that is known, else CRES_ERR_ENVIRONMENT naming both
               (`slurm: WORLD_SIZE="16" is set, but the slurm backend's answer is 4`): the
               environment describes another launch, and torch would read it. Not for torch,
               whose own variables these are, nor local (the way to run alone), nor JAX_* for
               jax; config.log INFO names a coordinator kept. cres_spec_launch_info(spec,
               type, id, &info, err) from a spec you hold (type NULL: rank, local_rank,
               local_world_size and node_rank CRES_UNKNOWN; with a type, a negative id is
               CRES_ERR_INVALID_ARGUMENT); a task not in the spec is CRES_ERR_NOT_FOUND, an
               address it cannot split CRES_ERR_INVALID_ARGUMENT.
      cres_tfconfig(r, buf, cap, &len, err)  resolves; {"cluster": ..., "task": {"type": T,
               "index": N}, "rpc_layer": R, "environment": E} of the own task (task left out
               when unknown). cres_spec_to_tfconfig(spec, type, id, rpc, environment, ...)
               from a spec (NULL rpc and environment written as "").
      cres_spec_to_hostfile(spec, buf, cap, &len, err)  "host slots=N" lines, one per host
               in the order of its first rank, IPv6 without brackets (Open MPI, DeepSpeed).
               cres_spec_to_machinefile(...) the same as "host:N" (MPICH, Intel MPI); an IPv6
               host is CRES_ERR_UNSUPPORTED (the form cannot hold it).
      cres_hostlist_expand(list, buf, cap, &len, &count, err)  a Slurm hostlist
               ("n[1-3,7],gpu[01-02]-ib", names separated by commas or white space) as
               "host\n" lines in list order, as `scontrol show hostnames` gives them: several
               bracket groups expand as a product, the last group fastest, then the first,
               the second, ..., the one before the last slowest (a[1-2]b[1-2]c[1-2]: a1b1c1
               a1b1c2 a2b1c1 a2b1c2 a1b2c1 ...); a range is N or N-M, digits only, below
               2^64-1, and keeps its lower bound's zero padding (n[01-10]: n01..n10;
               n[1-010]: n1..n10); duplicates stay; empty names are skipped; text after the
               last group is appended (as Slurm 23.02.5 and later). Stricter than Slurm:
               brackets inside names, blanks or signs in a range, more than 16 groups are
               errors. count is set whenever the list is valid; "" is 0 hosts.
      cres_tasks_per_node_expand(text, counts, cap, &count, err)  "2(x3),1" is 2, 2, 2, 1;
               counts NULL with cap 0 asks for the number; a short array gets the first cap
               counts and CRES_ERR_BUFFER_TOO_SMALL; counts and repeats 0..1000000 (repeats
               from 1), else CRES_ERR_INVALID_ARGUMENT.

   9. LIMITS AND THREADS -----------------------------------------------------------------
      Untrusted input gets a result code and a message, never a crash. CRES_ERR_LIMIT: JSON
      over CRES_MAX_DOCUMENT_BYTES (not HTTP bodies), with more than CRES_MAX_JSON_TOKENS
      tokens or nested deeper than CRES_MAX_JSON_DEPTH; names and addresses over their
      maximum; HTTP bodies over max_response_bytes; more than CRES_MAX_K8S_PAGES or
      CRES_MAX_K8S_PODS, or CRES_MAX_GCP_PAGES; hostlists, tasks-per-node lists, Slurm and
      MPI jobs of more than CRES_MAX_HOSTLIST_HOSTS (counted before expanding); hostfiles,
      TPU_CONFIG and SageMaker documents over CRES_MAX_DOCUMENT_BYTES; token files over 64
      KiB. CRES_ERR_INVALID_ARGUMENT: more than 1024 jobs in slurm or mpi options;
      CUDA_VISIBLE_DEVICES over 4096 bytes; gpus_per_node or gpus_per_task over 4096. Host
      names an address reader could not split back (':' outside an IPv6 literal, brackets,
      blanks, control characters) or longer than CRES_MAX_NAME_LENGTH are
      CRES_ERR_ENVIRONMENT; IPv6 literals (hex digits, '.' and two or more ':') are bracketed:
      "[fd00::1]:8888". JSON must be strict RFC 8259 in UTF-8 with no NUL (\u0000 included)
      in strings; a raw NUL byte anywhere is named with its offset. Time: timeout_ms per
      request, max_retries, resolve_timeout_ms a resolve (Kubernetes wait_ms: each poll).
      Threads: no global mutable state, no non-reentrant libc call; every function is
      reentrant. An object (a spec, a resolver; a union with its children counts as one)
      must not be used by two threads at once without a lock; different objects may be.
      Callbacks must be reentrant to that extent. The default getenv hook calls getenv(),
      which races with setenv() in other threads: give config.getenv a snapshot if your
      program changes its environment while resolving. The bundled curl transport needs
      curl_global_init() before threads start (see cres_curl_transport).

   LICENSE: see end of file.
*/

#ifndef CLUSTER_RESOLVER_H
#define CLUSTER_RESOLVER_H

#define CLUSTER_RESOLVER_VERSION_MAJOR 0
#define CLUSTER_RESOLVER_VERSION_MINOR 3
#define CLUSTER_RESOLVER_VERSION_PATCH 1
#define CRES__STR2(x) #x
#define CRES__STR(x) CRES__STR2(x)
#define CLUSTER_RESOLVER_VERSION_STRING             \
    CRES__STR(CLUSTER_RESOLVER_VERSION_MAJOR) "."    \
    CRES__STR(CLUSTER_RESOLVER_VERSION_MINOR) "."    \
    CRES__STR(CLUSTER_RESOLVER_VERSION_PATCH)
#define CLUSTER_RESOLVER_VERSION_NUM                                          \
    ((CLUSTER_RESOLVER_VERSION_MAJOR << 16) | (CLUSTER_RESOLVER_VERSION_MINOR << 8) | \
     CLUSTER_RESOLVER_VERSION_PATCH)

#include <stddef.h>

#ifndef CRES_API
#  ifdef CLUSTER_RESOLVER_STATIC
#    if defined(__GNUC__) || defined(__clang__)
#      define CRES_API static __attribute__((unused))
#    else
#      define CRES_API static
#    endif
#  else
#    define CRES_API extern
#  endif
#endif

/* printf-style checks of cres_error_set()'s arguments (on mingw, whose printf flavour only
   its <stdio.h> tells, the implementation adds them) */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__MINGW32__)
#  define CRES_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#  define CRES_PRINTF_LIKE(f, a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ////////////////////////////////////////////////////////////////////////////////////////
   Results and errors                                                             >>results */

/* One list makes both the enum and cres_result_string(). */
#define CRES__RESULTS(X)                                                                    \
    X(CRES_OK, "success")                                                                   \
    X(CRES_ERR_INVALID_ARGUMENT, "invalid argument")                                        \
    X(CRES_ERR_OUT_OF_MEMORY, "out of memory")                                              \
    X(CRES_ERR_NO_TRANSPORT, "no HTTP transport: define CLUSTER_RESOLVER_USE_CURL or set "  \
                             "config.transport")                                            \
    X(CRES_ERR_TRANSPORT, "HTTP request failed (connection, TLS or I/O error)")             \
    X(CRES_ERR_TIMEOUT, "timed out")                                                        \
    X(CRES_ERR_HTTP_STATUS, "the server answered with an error status")                     \
    X(CRES_ERR_INVALID_JSON, "invalid JSON, or JSON of the wrong shape")                    \
    X(CRES_ERR_UNEXPECTED_RESPONSE, "the server's answer does not have the expected shape") \
    X(CRES_ERR_ENVIRONMENT, "an environment variable or file is missing or malformed")      \
    X(CRES_ERR_NOT_FOUND, "not found")                                                      \
    X(CRES_ERR_NOT_READY, "the cluster is not ready")                                       \
    X(CRES_ERR_LIMIT, "a size or count limit was exceeded")                                 \
    X(CRES_ERR_BUFFER_TOO_SMALL, "the output buffer is too small")                          \
    X(CRES_ERR_UNSUPPORTED, "not supported")                                                \
    X(CRES_ERR_CONFLICT, "conflicting definitions (the same task defined twice)")         \
    X(CRES_ERR_INCOMPLETE, "the source names the coordinator, not every member's address")

#define CRES__ENUM_ITEM(name, text) name,
typedef enum cres_result { CRES__RESULTS(CRES__ENUM_ITEM) CRES_RESULT_COUNT } cres_result;
#undef CRES__ENUM_ITEM

#define CRES_ERROR_MESSAGE_SIZE 256
typedef struct cres_error {
    cres_result result;                      /* the code the call returned */
    int http_status;                         /* HTTP status when one caused it, else 0 */
    char message[CRES_ERROR_MESSAGE_SIZE];   /* names what failed; always NUL-terminated */
} cres_error;

CRES_API const char *cres_result_string(cres_result result); /* never NULL */
CRES_API const char *cres_version_string(void);              /* "0.3.1" */
/* For backends and transports of your own: sets err's result and its message (printf-style,
   cut to fit; err->message may be an argument), leaves http_status as it is; err may be NULL.
   Returns result. */
CRES_API cres_result cres_error_set(cres_error *err, cres_result result, const char *format, ...)
    CRES_PRINTF_LIKE(3, 4);

/* ////////////////////////////////////////////////////////////////////////////////////////
   Configuration shared by all backends                                            >>config */

/* Callbacks: each sits in a struct beside its `user` pointer, and takes that pointer first. */

/* All zero = CRES_MALLOC / CRES_FREE. Set both functions or neither. One the library hands
   out always has both filled in. */
typedef struct cres_allocator {
    void *(*alloc)(void *user, size_t size);  /* never asked for 0 bytes */
    void (*free)(void *user, void *ptr);      /* never given NULL */
    void *user;
} cres_allocator;

/* Returns the variable's value or NULL; the string must stay valid until the library call
   that asked returns (the library may ask for several variables before using them). */
typedef const char *(*cres_getenv_fn)(void *user, const char *name);
typedef struct cres_getenv_hook {
    cres_getenv_fn fn;                        /* NULL = getenv() */
    void *user;
} cres_getenv_hook;

/* The variables one by one, as "NAME=VALUE", NULL past the last: for the few sources whose
   variable names are not known in advance (Volcano's VC_<TASK>_HOSTS). */
typedef const char *(*cres_env_list_fn)(void *user, size_t index);
typedef struct cres_env_list_hook {
    cres_env_list_fn fn;                      /* NULL = the process environment */
    void *user;
} cres_env_list_hook;

typedef enum cres_log_level {
    CRES_LOG_DEBUG, CRES_LOG_INFO, CRES_LOG_WARN, CRES_LOG_ERROR
} cres_log_level;

/* The message is valid only during the call. Secrets are never passed to it. */
typedef void (*cres_log_fn)(void *user, cres_log_level level, const char *message);
typedef struct cres_log_hook {
    cres_log_fn fn;                           /* NULL = silent */
    void *user;
} cres_log_hook;

/* Waits between retries and Kubernetes polls, so that tests can make time pass at once. */
typedef void (*cres_sleep_fn)(void *user, int milliseconds);
typedef struct cres_sleep_hook {
    cres_sleep_fn fn;                         /* NULL = the system's sleep */
    void *user;
} cres_sleep_hook;

typedef struct cres_http_header {
    const char *name, *value;
} cres_http_header;

/* One HTTP request; every field is borrowed for the duration of perform(). */
typedef struct cres_http_request {
    const char *method;                  /* "GET", "POST" */
    const char *url;
    const cres_http_header *headers;
    size_t headers_count;
    const char *body;                    /* NULL when none */
    size_t body_len;
    int timeout_ms;                      /* whole request */
    const char *ca_file;                 /* NULL = the system's CA store */
    size_t max_response_bytes;           /* fail past this many body bytes */
    void **session;                      /* where a transport may keep a connection between
                                            the requests of one resolve; *session starts NULL
                                            and close_session() gets it at the end */
    const struct cres_http_tls *tls;     /* NULL = none of the TLS material below */
} cres_http_request;

/* TLS material beyond ca_file, as a kubeconfig carries it. A transport says in
   cres_transport.features which fields it honours; the library never hands it a request that
   needs another one (CRES_ERR_UNSUPPORTED names the field instead of the field being ignored). */
#define CRES_TRANSPORT_CA_PEM 0x01u      /* tls->ca_pem */
#define CRES_TRANSPORT_CLIENT_CERT 0x02u /* tls->client_cert_pem and client_key_pem */
#define CRES_TRANSPORT_SERVER_NAME 0x04u /* tls->server_name */
#define CRES_TRANSPORT_PROXY 0x08u       /* tls->proxy */
#define CRES_TRANSPORT_INSECURE 0x10u    /* tls->insecure_skip_verify */
typedef struct cres_http_tls {
    const char *ca_pem;          /* trusted CAs as PEM text, instead of ca_file; NULL = none */
    const char *client_cert_pem; /* a client certificate (chain) as PEM, with its key: */
    const char *client_key_pem;
    const char *server_name;     /* the name SNI sends and the certificate must match, not the
                                    URL's host; the Host header stays the URL's */
    const char *proxy;           /* "http://h:p", "https://h:p" or "socks5://h:p" for every
                                    host, loopback too (no_proxy is not consulted) */
    int insecure_skip_verify;    /* non-zero: the server's certificate is not verified */
} cres_http_tls;

/* perform() fills it; body is allocated with the allocator it is handed, NUL-terminated.
   perform() returns CRES_OK for any HTTP status; it fails only when there is no whole answer
   (CRES_ERR_TRANSPORT, CRES_ERR_TIMEOUT, CRES_ERR_LIMIT past max_response_bytes,
   CRES_ERR_OUT_OF_MEMORY), and then leaves no body allocated. */
typedef struct cres_http_response {
    int status;           /* on a failure: the status line's code if one arrived, else 0 */
    char *body;
    size_t body_len;
    int retry_after_s;    /* a Retry-After header in seconds, 0 when absent */
} cres_http_response;

/* An HTTP transport. perform() does one request (retries, backoff, paging and limits are the
   library's): it sends method, url, headers and body within timeout_ms, verifying TLS against
   ca_file (NULL: the system store), and fills response->status (any status is CRES_OK), the
   body and retry_after_s. It may keep a connection in *request->session, which
   close_session() receives when the resolve ends. It fails only when there is no whole
   answer: CRES_ERR_TRANSPORT (connect, TLS, I/O: retried), CRES_ERR_TIMEOUT (a server that
   took the request and stayed silent: not retried), CRES_ERR_LIMIT past max_response_bytes or
   CRES_ERR_OUT_OF_MEMORY; it then leaves no body allocated and sets status to the status
   line's code if one arrived, else 0. Above it the library retries connection errors and 5xx
   config.max_retries times and 429 while the resolve's bound leaves time, each wait drawn at
   random (config.max_retries in section 4), through the sleep hook, none past the bound.
   examples/custom_transport.c is a complete one in 30 lines. */
typedef struct cres_transport {
    cres_result (*perform)(void *user, const cres_http_request *req, cres_http_response *resp,
                           const cres_allocator *alloc, cres_error *err);
    void (*close_session)(void *user, void *session); /* optional */
    void *user;
    unsigned features; /* CRES_TRANSPORT_* bits: the request->tls fields it honours */
} cres_transport;

/* Runs a program without a shell (a kubeconfig's exec credential plugin): stdin /dev/null,
   stdout collected, stderr's last CRES_EXEC_STDERR_KEEP bytes kept. Returns CRES_OK when it
   ran and ended (any exit code); CRES_ERR_ENVIRONMENT when it could not start (named in the
   message), CRES_ERR_TIMEOUT killed at timeout_ms, CRES_ERR_LIMIT killed for more stdout than
   max_output_bytes, CRES_ERR_OUT_OF_MEMORY; on failure nothing is left allocated. */
#define CRES_EXEC_STDERR_KEEP 4096
typedef struct cres_exec_request {
    const char *const *argv;  /* NULL-terminated; argv[0] a path when it holds a '/', else
                                 looked up in the PATH of the calling process */
    const char *const *envp;  /* the program's whole environment, "NAME=VALUE", NULL-ended */
    int timeout_ms;
    size_t max_output_bytes;
} cres_exec_request;
typedef struct cres_exec_result {
    int exit_code;            /* 0..255; 128 + N when signal N ended it */
    char *out;                /* stdout, NUL-terminated, allocated with the given allocator */
    size_t out_len;
    char *err;                /* the end of stderr, likewise */
    size_t err_len;
} cres_exec_result;
typedef cres_result (*cres_exec_fn)(void *user, const cres_exec_request *req,
                                    cres_exec_result *result, const cres_allocator *alloc,
                                    cres_error *err);
typedef struct cres_exec_hook {
    cres_exec_fn fn;          /* NULL = posix_spawnp() (CRES_ERR_UNSUPPORTED on Windows) */
    void *user;
} cres_exec_hook;

/* Signs a Google service-account JWT: RS256, RSASSA-PKCS1-v1_5 over SHA-256 of data, with the
   key file's PEM private key (PKCS#8 "BEGIN PRIVATE KEY"). Writes the signature into sig
   (CRES_SIGNATURE_MAX bytes) and its length into *sig_len. Never logs the key. */
#define CRES_SIGNATURE_MAX 1024 /* an RSA key of 8192 bits */
typedef struct cres_sign_request {
    const char *algorithm;       /* "RS256" */
    const char *private_key_pem;
    const unsigned char *data;
    size_t data_len;
} cres_sign_request;
typedef cres_result (*cres_sign_fn)(void *user, const cres_sign_request *req, unsigned char *sig,
                                    size_t *sig_len, cres_error *err);
typedef struct cres_sign_hook {
    cres_sign_fn fn;          /* NULL = OpenSSL's libcrypto with CLUSTER_RESOLVER_USE_OPENSSL,
                                 else service-account keys fail (CRES_ERR_UNSUPPORTED) */
    void *user;
} cres_sign_hook;

typedef struct cres_config {
    cres_allocator allocator;   /* zero = CRES_MALLOC / CRES_FREE */
    cres_transport transport;   /* zero = bundled curl if compiled in, else NO_TRANSPORT */
    cres_getenv_hook getenv;    /* zero = getenv() */
    cres_log_hook log;          /* zero = silent */
    cres_sleep_hook sleep;      /* zero = the system's */
    int timeout_ms;             /* per HTTP request; 0 = 10000 */
    int max_retries;            /* on connect errors, 429 and 5xx; 0 = 3, -1 = none */
    size_t max_response_bytes;  /* 0 = 64 MiB */
    int resolve_timeout_ms;     /* all HTTP requests and retry waits of one resolve;
                                   0 = 60000, -1 = no bound beyond timeout_ms per request */
    cres_env_list_hook env_list; /* zero = the process environment; give it with a getenv
                                    hook of your own */
    cres_exec_hook exec;        /* zero = posix_spawnp(): kubeconfig exec plugins */
    cres_sign_hook sign;        /* zero = libcrypto if compiled in: Google key files */
} cres_config;

#ifdef CLUSTER_RESOLVER_USE_CURL
/* The bundled libcurl transport (CLUSTER_RESOLVER_USE_CURL where the implementation is;
   -lcurl, Debian libcurl4-openssl-dev): TLS peer and host verification always on, no
   redirects (a bearer token never goes to another host), connect timeout min(timeout_ms,
   5 s), gzip asked for (every encoding this libcurl decodes), the size cap enforced on the
   decoded body while receiving, one connection for the requests of a resolve,
   curl's error text in err->message. libcurl honours http_proxy, https_proxy and no_proxy.
   Call curl_global_init(CURL_GLOBAL_DEFAULT) once before starting threads: libcurl makes the
   call itself on first use otherwise, which is thread-safe only from libcurl 7.84 on. */
CRES_API cres_transport cres_curl_transport(void);
#endif

/* ////////////////////////////////////////////////////////////////////////////////////////
   Cluster specs                                                                     >>spec */

typedef struct cres_task {
    int index;               /* task index within its job, 0..INT_MAX */
    const char *address;     /* "host:port" */
} cres_task;

typedef struct cres_job {
    const char *name;
    const cres_task *tasks;  /* sorted by index */
    size_t tasks_count;
} cres_job;

typedef struct cres_cluster_spec cres_cluster_spec;

CRES_API cres_result cres_spec_create(const cres_allocator *alloc, cres_cluster_spec **out,
                                      cres_error *err);
CRES_API void cres_spec_free(cres_cluster_spec *spec);
CRES_API cres_result cres_spec_add_task(cres_cluster_spec *spec, const char *job, int index,
                                        const char *address, cres_error *err);
CRES_API cres_result cres_spec_add_job(cres_cluster_spec *spec, const char *job,
                                       const char *const *addresses, size_t count,
                                       cres_error *err);
CRES_API size_t cres_spec_jobs_count(const cres_cluster_spec *spec);
CRES_API const cres_job *cres_spec_job_at(const cres_cluster_spec *spec, size_t i);
CRES_API const cres_job *cres_spec_job(const cres_cluster_spec *spec, const char *job);
CRES_API const char *cres_spec_task_address(const cres_cluster_spec *spec, const char *job,
                                            int index);
CRES_API size_t cres_spec_tasks_count(const cres_cluster_spec *spec, const char *job);
CRES_API int cres_spec_equal(const cres_cluster_spec *a, const cres_cluster_spec *b);
CRES_API cres_result cres_spec_clone(const cres_cluster_spec *spec, const cres_allocator *alloc,
                                     cres_cluster_spec **out, cres_error *err);
CRES_API cres_result cres_spec_merge(cres_cluster_spec *dst, const cres_cluster_spec *src,
                                     cres_error *err);
CRES_API cres_result cres_spec_from_json(const char *json, size_t len,
                                         const cres_allocator *alloc, cres_cluster_spec **out,
                                         cres_error *err);
CRES_API cres_result cres_spec_to_json(const cres_cluster_spec *spec, char *buf, size_t cap,
                                       size_t *out_len, cres_error *err);

/* ////////////////////////////////////////////////////////////////////////////////////////
   Resolvers                                                                     >>resolver */

#define CRES_UNKNOWN (-1)          /* a number the library does not know: a task id, a launch
                                      info number (manual section 2) */
#define CRES_NO_TASK CRES_UNKNOWN  /* cres_task_id() of a resolver that knows no own task */
#define CRES_OWN_TASK (-1)         /* task_id of the *_of() calls: the own task's */
#define CRES_ACCELERATOR_TYPE_SIZE 16
#define CRES_MAX_ACCELERATOR_KINDS 8

typedef struct cres_accelerator {
    char type[CRES_ACCELERATOR_TYPE_SIZE];   /* "GPU", "TPU" */
    int count;                               /* per task */
} cres_accelerator;

typedef struct cres_accelerators {
    cres_accelerator items[CRES_MAX_ACCELERATOR_KINDS];
    size_t count;
} cres_accelerators;

typedef struct cres_resolver cres_resolver;
struct cres_launch_info; /* section >>launch */

typedef struct cres_resolver_vtable {
    const char *name; /* "tfconfig" */
    /* Required: a fresh spec built with cres_resolver_allocator(self). */
    cres_result (*resolve)(cres_resolver *self, cres_cluster_spec **out, cres_error *err);
    /* Optional: NULL = the default rule (own or given task's address, else ""). Arguments
       arrive as the caller gave them (NULL / -1 = own). */
    cres_result (*master)(cres_resolver *self, const char *task_type, int task_id,
                          const char *rpc_layer, char *buf, size_t cap, size_t *out_len,
                          cres_error *err);
    /* Optional: NULL = no accelerators. */
    cres_result (*num_accelerators)(cres_resolver *self, const char *task_type, int task_id,
                                    cres_accelerators *out, cres_error *err);
    /* Optional: release what the backend added; the block itself is freed for you. */
    void (*destroy)(cres_resolver *self);
    /* Optional: NULL = no assignment. The devices of a task, written as for
       cres_visible_devices(). */
    cres_result (*visible_devices)(cres_resolver *self, const char *task_type, int task_id,
                                   char *buf, size_t cap, size_t *out_len, cres_error *err);
    /* Optional: NULL = from the spec (cres_spec_launch_info() of the own task). The own
       task's launch info, for sources that know it without every address. */
    cres_result (*launch)(cres_resolver *self, struct cres_launch_info *out, cres_error *err);
} cres_resolver_vtable;

/* Public so that a backend can embed it as its first member; read it through the getters. */
struct cres_resolver {
    const cres_resolver_vtable *vtable;
    cres_config config;      /* a copy with the defaults filled in (max_retries: the count);
                                callbacks and user pointers borrowed */
    char *task_type;         /* NULL = unknown */
    int task_id;             /* CRES_NO_TASK = unknown */
    int task_overridden;     /* set by cres_set_task(): backends leave the task alone */
    char *rpc_layer;         /* NULL = none */
    char *environment;       /* NULL = unknown */
    unsigned long long jitter; /* the library's: retry waits' random state, kept between
                                  resolves so that each draws anew */
    const char *no_task_why;   /* the library's: why the own task is unknown, naming the
                                  variables (a static string), for messages; NULL = unsaid */
    const cres_resolver *owner; /* the library's: the union that frees it; NULL = the program */
};

CRES_API cres_result cres_resolve(cres_resolver *r, cres_cluster_spec **out_spec,
                                  cres_error *err);
/* The own task's master ("grpc://10.0.0.7:8470"); cres_master_of() another task's (task_type
   NULL / task_id CRES_OWN_TASK / rpc_layer NULL: the own ones). */
CRES_API cres_result cres_master(cres_resolver *r, char *buf, size_t cap, size_t *out_len,
                                 cres_error *err);
CRES_API cres_result cres_master_of(cres_resolver *r, const char *task_type, int task_id,
                                    const char *rpc_layer, char *buf, size_t cap,
                                    size_t *out_len, cres_error *err);
/* Accelerators per task ({"GPU", 4}), of the own task or another. */
CRES_API cres_result cres_num_accelerators(cres_resolver *r, cres_accelerators *out,
                                           cres_error *err);
CRES_API cres_result cres_num_accelerators_of(cres_resolver *r, const char *task_type,
                                              int task_id, cres_accelerators *out,
                                              cres_error *err);
/* The GPUs a task should see, as a CUDA_VISIBLE_DEVICES value ("2,3"); "" when the backend
   assigns none. Nothing is written to the environment: that is the caller's choice. */
CRES_API cres_result cres_visible_devices(cres_resolver *r, char *buf, size_t cap,
                                          size_t *out_len, cres_error *err);
CRES_API cres_result cres_visible_devices_of(cres_resolver *r, const char *task_type,
                                             int task_id, char *buf, size_t cap,
                                             size_t *out_len, cres_error *err);
CRES_API const char *cres_resolver_name(const cres_resolver *r);
CRES_API const char *cres_task_type(const cres_resolver *r);
CRES_API int cres_task_id(const cres_resolver *r);
CRES_API const char *cres_rpc_layer(const cres_resolver *r);
CRES_API const char *cres_environment(const cres_resolver *r);
CRES_API cres_result cres_set_task(cres_resolver *r, const char *task_type, int task_id,
                                   cres_error *err);
CRES_API cres_result cres_set_rpc_layer(cres_resolver *r, const char *rpc_layer,
                                        cres_error *err);
CRES_API void cres_resolver_free(cres_resolver *r);

/* For backends written outside the library. */
CRES_API cres_result cres_resolver_new(size_t size, const cres_resolver_vtable *vtable,
                                       const cres_config *config, cres_resolver **out,
                                       cres_error *err);
CRES_API const cres_allocator *cres_resolver_allocator(const cres_resolver *r);
CRES_API const char *cres_resolver_getenv(const cres_resolver *r, const char *name);
/* The index-th variable of the environment ("NAME=VALUE") through the config's env_list
   hook; NULL past the last. */
CRES_API const char *cres_resolver_env_at(const cres_resolver *r, size_t index);
CRES_API cres_result cres_set_detected_task(cres_resolver *r, const char *task_type,
                                            int task_id, cres_error *err);
CRES_API cres_result cres_set_environment(cres_resolver *r, const char *environment,
                                          cres_error *err);

/* ////////////////////////////////////////////////////////////////////////////////////////
   Backends                                                                      >>backends */

typedef struct cres_simple_options {
    const cres_config *config;
    const cres_cluster_spec *spec;            /* required; copied */
    const char *master;                       /* NULL = none */
    const char *task_type;                    /* NULL = unknown */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = none */
    const char *environment;                  /* NULL (or "") = none */
    const cres_accelerators *accelerators;    /* NULL = none; copied */
} cres_simple_options;

typedef struct cres_union_options {
    const cres_config *config;
    cres_resolver *const *resolvers;          /* at least one */
    size_t resolvers_count;
    int owns_resolvers;                       /* non-zero: freed with the union (also when
                                                 create fails) */
    const char *task_type;                    /* NULL = the first child's */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = the first child's */
} cres_union_options;

typedef struct cres_tfconfig_options {
    const cres_config *config;
    const char *json;                         /* NULL = read $TF_CONFIG through config */
    const char *task_type;                    /* NULL = TF_CONFIG's task.type */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = TF_CONFIG's rpc_layer */
    const char *environment;                  /* NULL = TF_CONFIG's environment, else none */
} cres_tfconfig_options;

typedef struct cres_local_options {
    const cres_config *config;
    const char *job_name;                     /* NULL = "worker" */
    const char *host;                         /* NULL = "localhost" */
    int port;                                 /* 0 = 8470 */
    const char *rpc_layer;                    /* NULL = none */
} cres_local_options;

/* One job fed by one label selector; give a job several entries for several selectors. */
typedef struct cres_k8s_job_selector {
    const char *job;                          /* "worker" */
    const char *selector;                     /* "job-name=trainer" (as kubectl -l) */
} cres_k8s_job_selector;

typedef enum cres_k8s_address {
    CRES_K8S_POD_IP = 0,                      /* status.podIP (default) */
    CRES_K8S_HOST_IP,                         /* status.hostIP, the node (TF's choice) */
    CRES_K8S_DNS                              /* hostname.subdomain.ns.svc.<domain> when the
                                                 pod has both, else its pod IP */
} cres_k8s_address;

/* Where a job's members come from (section >>k8s, "members from the own Job"). */
typedef enum cres_k8s_members {
    CRES_K8S_MEMBERS_DEFAULT = 0,             /* kubernetes: LIST; auto: JOB in an Indexed
                                                 Job's pod */
    CRES_K8S_MEMBERS_LIST,                    /* list the selectors' pods (TF's way) */
    CRES_K8S_MEMBERS_JOB                      /* name the own Indexed Job's (or JobSet's) pods
                                                 from one GET of each; else the list, logged */
} cres_k8s_members;

typedef struct cres_k8s_options {
    const cres_config *config;
    const cres_k8s_job_selector *jobs;        /* NULL = {"worker", "job-name=tensorflow"} */
    size_t jobs_count;
    const char *server;                       /* NULL = in cluster: https://$KUBERNETES_SERVICE_
                                                 HOST:$KUBERNETES_SERVICE_PORT */
    const char *token;                        /* NULL = read token_file at every resolve */
    const char *token_file;                   /* NULL = the service account's in a cluster,
                                                 none with options.server */
    const char *ca_file;                      /* NULL = the service account's ca.crt in a
                                                 cluster, the system store with server */
    const char *namespace_name;               /* NULL = namespace_file, else "default" */
    const char *namespace_file;               /* NULL = the service account's in a cluster */
    int all_namespaces;                       /* non-zero: list pods of every namespace */
    int port;                                 /* task port; 0 = 8470 */
    cres_k8s_address address;
    const char *cluster_domain;               /* NULL = "cluster.local" */
    int page_size;                            /* pods per request; 0 = 500 */
    int wait_ms;                              /* 0 = a pod not Running is CRES_ERR_NOT_READY;
                                                 else poll until this many ms have passed */
    const char *hostname;                     /* own pod; NULL = $HOSTNAME */
    int follow_jobset;                        /* non-zero: the job holding the own pod, when
                                                 that pod is of a JobSet, is the whole JobSet
                                                 (auto sets it; manual: kubernetes) */
    cres_k8s_members members;                 /* DEFAULT = LIST */
    const char *kubeconfig;                   /* this kubeconfig file only; NULL = the files of
                                                 $KUBECONFIG, else ~/.kube/config, else in
                                                 cluster (unused with server) */
    const char *context;                      /* NULL = the kubeconfig's current-context */
    const char *task_type;                    /* NULL = the job of the pod named hostname */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = "grpc" */
} cres_k8s_options;

typedef struct cres_gce_options {
    const cres_config *config;
    const char *instance_group;               /* required */
    const char *project;                      /* NULL = the metadata server's project */
    const char *zone;                         /* a zonal group's zone; NULL = this instance's */
    const char *region;                       /* set for a regional group */
    int port;                                 /* task port; 0 = 8470 */
    const char *job_name;                     /* NULL = "worker" */
    const char *compute_url;                  /* NULL = https://compute.googleapis.com/compute/v1 */
    const char *ca_file;                      /* CA bundle for compute_url; NULL = the system's */
    const char *metadata_url;                 /* NULL = $GCE_METADATA_HOST, $GCE_METADATA_IP,
                                                 else metadata.google.internal */
    const char *token;                        /* OAuth access token; NULL = token_file, else
                                                 the metadata server's (once per resolve) */
    const char *token_file;
    const char *credentials_file;             /* a Google credentials file (Application
                                                 Default Credentials); NULL = the ADC chain */
    const char *instance_name;                /* own instance; NULL = metadata instance/name */
    const char *task_type;                    /* NULL = the job of the own instance */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = "grpc" */
} cres_gce_options;

typedef struct cres_tpu_options {
    const cres_config *config;
    const char *tpu;                          /* a TPU name, "grpc://host:port,..." endpoints,
                                                 or "local"; NULL = $KUBE_GOOGLE_CLOUD_TPU_
                                                 ENDPOINTS, $TPU_NAME, else $TPU_CONFIG */
    const char *project;                      /* NULL = TPU_CONFIG's, else the metadata's */
    const char *zone;
    const char *api_version;                  /* "v2" (TPU VMs; default) or "v1" (TPU nodes) */
    const char *tpu_url;                      /* NULL = https://tpu.googleapis.com */
    const char *ca_file;                      /* CA bundle for tpu_url; NULL = the system's */
    const char *metadata_url;                 /* as for GCE */
    const char *token;                        /* as for GCE */
    const char *token_file;
    const char *credentials_file;             /* as for GCE */
    const char *job_name;                     /* NULL = "worker" */
    const char *coordinator_name;             /* an extra job of one task, e.g. "coordinator" */
    const char *coordinator_address;          /* its "host:port"; required with the name */
    int allow_unhealthy;                      /* non-zero: a READY node need not be HEALTHY */
    int accelerators_per_host;                /* 0 = from the accelerator type (manual: tpu) */
    const char *task_type;                    /* NULL = job_name, task $TPU_WORKER_ID or 0 */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = "grpc" */
} cres_tpu_options;

/* A job and how many tasks it takes, for backends that split ranks into jobs. */
typedef struct cres_job_count {
    const char *job;                          /* "worker" */
    int count;                                /* >= 0 */
} cres_job_count;

#define CRES_NO_GPUS (-1)                     /* gpus_per_node: this job uses no GPU */

typedef struct cres_slurm_options {
    const cres_config *config;
    const cres_job_count *jobs;               /* NULL = {"worker", every task}; the counts
                                                 must add up to the step's tasks */
    size_t jobs_count;
    int port_base;                            /* a task's port = port_base + its index among
                                                 the tasks on its host; 0 = 8888 */
    int gpus_per_node;                        /* 0 = count $CUDA_VISIBLE_DEVICES (unset or
                                                 empty: none); CRES_NO_GPUS = none */
    int gpus_per_task;                        /* 0 = gpus_per_node / most tasks on a node */
    const char *task_type;                    /* NULL = the job of $SLURM_PROCID */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = "grpc" */
} cres_slurm_options;

typedef struct cres_mpi_options {
    const cres_config *config;
    const char *hostfile;                     /* Open MPI ("h slots=N") or MPICH ("h:N")
                                                 hostfile; NULL = what the launcher's
                                                 environment tells (manual section 7) */
    const char *hostname;                     /* this host when every rank runs here; NULL =
                                                 $PMIX_HOSTNAME, else "localhost" */
    const cres_job_count *jobs;               /* as for Slurm */
    size_t jobs_count;
    int port_base;                            /* as for Slurm; 0 = 8888 */
    int gpus_per_node;                        /* as for Slurm */
    int gpus_per_task;
    const char *task_type;                    /* NULL = the job of the MPI rank */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = "grpc" */
} cres_mpi_options;

/* Schedulers beyond Slurm: their allocation is the cluster; jobs, ports and GPUs as for
   Slurm (see cres_slurm_options). */
#define CRES__SCHED_OPTIONS                                                                    \
    const cres_config *config;                                                             \
    const cres_job_count *jobs;  /* NULL = {"worker", every rank} */                       \
    size_t jobs_count;                                                                     \
    int port_base;               /* 0 = 8888 */                                            \
    int gpus_per_node;                                                                     \
    int gpus_per_task;                                                                     \
    const char *task_type;       /* NULL = the job of the rank variable */                 \
    int task_id;                 /* used when task_type is set */                          \
    const char *rpc_layer;       /* NULL = "grpc" */
typedef struct cres_pbs_options { CRES__SCHED_OPTIONS } cres_pbs_options;
typedef struct cres_lsf_options { CRES__SCHED_OPTIONS } cres_lsf_options;
typedef struct cres_sge_options { CRES__SCHED_OPTIONS } cres_sge_options;
typedef struct cres_flux_options {
    CRES__SCHED_OPTIONS
    const char *hostfile;        /* required: Flux tells a task no hosts */
} cres_flux_options;

typedef struct cres_sagemaker_options {
    const cres_config *config;
    const char *hosts;                        /* JSON list; NULL = $SM_HOSTS, else
                                                 resource_config's "hosts" */
    const char *current_host;                 /* NULL = $SM_CURRENT_HOST, else
                                                 resource_config's "current_host" */
    const char *resource_config;              /* NULL = /opt/ml/input/config/
                                                 resourceconfig.json */
    int port;                                 /* 0 = 2223 */
    const char *job_name;                     /* NULL = "worker"; not with instance_groups */
    int instance_groups;                      /* 0 = one job of every host; else a job per
                                                 instance group (heterogeneous clusters),
                                                 named by its instance_group_name */
    const char *instance_groups_dict;         /* JSON object as $SM_INSTANCE_GROUPS_DICT; NULL
                                                 = it, else resource_config's
                                                 "instance_groups" (instance_groups only) */
    const char *current_instance_group;       /* checked when known; NULL =
                                                 $SM_CURRENT_INSTANCE_GROUP, else
                                                 "current_group_name" (instance_groups only) */
    const char *task_type;                    /* NULL = job_name (or the current host's group),
                                                 the current host's index */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = none (as TensorFlow) */
} cres_sagemaker_options;

/* Coordinator-only sources (manual section 7): cres_resolve() is CRES_ERR_INCOMPLETE, the
   launch info and master come from the variables. One job, task index = rank. */
typedef struct cres_torch_options {
    const cres_config *config;
    const char *task_type;                    /* NULL = "worker", index $RANK */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = none */
} cres_torch_options;

typedef struct cres_jax_options {
    const cres_config *config;
    const char *task_type;                    /* NULL = "worker", index $JAX_PROCESS_ID */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = none */
} cres_jax_options;

typedef struct cres_awsbatch_options {
    const cres_config *config;
    const char *main_host;                    /* the main node's address on the main node
                                                 itself; NULL = "localhost" */
    int port;                                 /* the coordinator's; 0 = 29500 */
    const char *task_type;                    /* NULL = "worker", index = the node's rank */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = none */
} cres_awsbatch_options;

/* Platforms that name every member: one spec, read once at create. */
typedef struct cres_vertex_options {
    const cres_config *config;
    const char *cluster_spec;                 /* JSON; NULL = $CLUSTER_SPEC */
    const char *task_type;                    /* NULL = CLUSTER_SPEC's task */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = none */
} cres_vertex_options;

typedef struct cres_skypilot_options {
    const cres_config *config;
    int port;                                 /* 0 = 8470 */
    const char *job_name;                     /* NULL = "worker" */
    const char *task_type;                    /* NULL = job_name, $SKYPILOT_NODE_RANK */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = none */
} cres_skypilot_options;

typedef struct cres_volcano_options {
    const cres_config *config;
    int port;                                 /* 0 = 8470 */
    const char *hostname;                     /* this pod's; NULL = $HOSTNAME */
    const char *task_type;                    /* NULL = the task holding hostname */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = none */
} cres_volcano_options;

typedef struct cres_lws_options {
    const cres_config *config;
    int port;                                 /* 0 = 8470 */
    const char *hostname;                     /* this pod's; NULL = $HOSTNAME (checked) */
    const char *job_name;                     /* NULL = "worker" */
    const char *task_type;                    /* NULL = job_name, $LWS_WORKER_INDEX */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = none */
} cres_lws_options;

typedef struct cres_auto_options {
    const cres_config *config;
    const char *backend;                      /* NULL or "auto" = detect; else force one */
    const char *task_type;                    /* NULL = what the backend finds */
    int task_id;                              /* used when task_type is set */
    const char *rpc_layer;                    /* NULL = the backend's default */
    int port;                                 /* for backends that make addresses; 0 =
                                                 their default */
    cres_k8s_members k8s_members;             /* DEFAULT = JOB in an Indexed Job's pod */
    /* The options of the backend auto picks, as you would give them to that backend named:
       NULL = its defaults. Their config NULL = this one's; port (port_base) 0 = port above;
       kubernetes: jobs NULL and members DEFAULT = auto's choice in an Indexed Job's pod;
       tpu: tpu NULL = "local" unless a TPU variable names one. Options of a backend auto
       does not pick are not read. */
    const cres_tfconfig_options *tfconfig;
    const cres_local_options *local;
    const cres_slurm_options *slurm;
    const cres_mpi_options *mpi;
    const cres_pbs_options *pbs;
    const cres_lsf_options *lsf;
    const cres_sge_options *sge;
    const cres_flux_options *flux;
    const cres_sagemaker_options *sagemaker;
    const cres_vertex_options *vertex;
    const cres_skypilot_options *skypilot;
    const cres_volcano_options *volcano;
    const cres_lws_options *lws;
    const cres_awsbatch_options *awsbatch;
    const cres_torch_options *torch;
    const cres_jax_options *jax;
    const cres_tpu_options *tpu;
    const cres_k8s_options *k8s;
} cres_auto_options;

CRES_API cres_result cres_simple_resolver_create(const cres_simple_options *options,
                                                 cres_resolver **out, cres_error *err);
CRES_API cres_result cres_union_resolver_create(const cres_union_options *options,
                                                cres_resolver **out, cres_error *err);
CRES_API cres_result cres_tfconfig_resolver_create(const cres_tfconfig_options *options,
                                                   cres_resolver **out, cres_error *err);
CRES_API cres_result cres_local_resolver_create(const cres_local_options *options,
                                                cres_resolver **out, cres_error *err);
CRES_API cres_result cres_k8s_resolver_create(const cres_k8s_options *options,
                                              cres_resolver **out, cres_error *err);
CRES_API cres_result cres_gce_resolver_create(const cres_gce_options *options,
                                              cres_resolver **out, cres_error *err);
CRES_API cres_result cres_tpu_resolver_create(const cres_tpu_options *options,
                                              cres_resolver **out, cres_error *err);
CRES_API cres_result cres_slurm_resolver_create(const cres_slurm_options *options,
                                                cres_resolver **out, cres_error *err);
CRES_API cres_result cres_mpi_resolver_create(const cres_mpi_options *options,
                                              cres_resolver **out, cres_error *err);
CRES_API cres_result cres_sagemaker_resolver_create(const cres_sagemaker_options *options,
                                                    cres_resolver **out, cres_error *err);
CRES_API cres_result cres_pbs_resolver_create(const cres_pbs_options *options,
                                              cres_resolver **out, cres_error *err);
CRES_API cres_result cres_lsf_resolver_create(const cres_lsf_options *options,
                                              cres_resolver **out, cres_error *err);
CRES_API cres_result cres_sge_resolver_create(const cres_sge_options *options,
                                              cres_resolver **out, cres_error *err);
CRES_API cres_result cres_flux_resolver_create(const cres_flux_options *options,
                                               cres_resolver **out, cres_error *err);
CRES_API cres_result cres_vertex_resolver_create(const cres_vertex_options *options,
                                                 cres_resolver **out, cres_error *err);
CRES_API cres_result cres_skypilot_resolver_create(const cres_skypilot_options *options,
                                                   cres_resolver **out, cres_error *err);
CRES_API cres_result cres_volcano_resolver_create(const cres_volcano_options *options,
                                                  cres_resolver **out, cres_error *err);
CRES_API cres_result cres_lws_resolver_create(const cres_lws_options *options,
                                              cres_resolver **out, cres_error *err);
CRES_API cres_result cres_torch_resolver_create(const cres_torch_options *options,
                                                cres_resolver **out, cres_error *err);
CRES_API cres_result cres_jax_resolver_create(const cres_jax_options *options,
                                              cres_resolver **out, cres_error *err);
CRES_API cres_result cres_awsbatch_resolver_create(const cres_awsbatch_options *options,
                                                   cres_resolver **out, cres_error *err);
CRES_API cres_result cres_auto_resolver_create(const cres_auto_options *options,
                                               cres_resolver **out, cres_error *err);

/* ////////////////////////////////////////////////////////////////////////////////////////
   Launcher output                                                                 >>launch */

#define CRES_HOST_SIZE 256         /* a host name and its NUL */
#define CRES_ADDRESS_SIZE 1024     /* a "host:port" address and its NUL */

typedef struct cres_launch_info {
    int world_size;                        /* all tasks */
    int rank;                              /* the task's global rank (manual section 8) */
    int local_rank;                        /* among tasks on the same host */
    int local_world_size;
    int node_rank;                         /* the host's index, hosts in rank order */
    int num_nodes;                         /* hosts */
    char master_host[CRES_HOST_SIZE];      /* rank 0's host; IPv6 without brackets */
    int master_port;                       /* rank 0's port; CRES_UNKNOWN without one */
    char master_address[CRES_ADDRESS_SIZE]; /* rank 0's address as in the spec */
} cres_launch_info;

/* How the own task is started: resolves, then the launch info of the resolver's own task,
   with what the environment sets explicitly applied (cres_launch_apply_env). */
CRES_API cres_result cres_launch(cres_resolver *r, cres_launch_info *out, cres_error *err);
/* What the environment sets explicitly about the launch, applied to info as the backend of r
   answered it: a coordinator (MASTER_ADDR, MASTER_PORT, else JAX_COORDINATOR_ADDRESS) is kept
   as given; a size or rank (WORLD_SIZE, RANK, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK,
   NODE_RANK, GROUP_WORLD_SIZE, JAX_NUM_PROCESSES, JAX_PROCESS_ID) must equal the answer's, else
   CRES_ERR_ENVIRONMENT naming both. Not for the backends those variables are the source of. */
CRES_API cres_result cres_launch_apply_env(const cres_resolver *r, cres_launch_info *info,
                                           cres_error *err);
/* The own TF_CONFIG: the resolved cluster, the own task, rpc layer and environment. */
CRES_API cres_result cres_tfconfig(cres_resolver *r, char *buf, size_t cap, size_t *out_len,
                                   cres_error *err);
/* The same from a spec you hold: task_type NULL leaves the task (and the ranks) out. */
CRES_API cres_result cres_spec_launch_info(const cres_cluster_spec *spec, const char *task_type,
                                           int task_id, cres_launch_info *out, cres_error *err);
CRES_API cres_result cres_spec_to_hostfile(const cres_cluster_spec *spec, char *buf, size_t cap,
                                           size_t *out_len, cres_error *err);
/* MPICH / Intel MPI machine file: "host:N" lines. */
CRES_API cres_result cres_spec_to_machinefile(const cres_cluster_spec *spec, char *buf, size_t cap,
                                              size_t *out_len, cres_error *err);
CRES_API cres_result cres_spec_to_tfconfig(const cres_cluster_spec *spec, const char *task_type,
                                           int task_id, const char *rpc_layer,
                                           const char *environment, char *buf, size_t cap,
                                           size_t *out_len, cres_error *err);

/* ////////////////////////////////////////////////////////////////////////////////////////
   Slurm hostlists                                                               >>hostlist */

/* Expands a Slurm hostlist ("n[1-3,7],gpu[01-02]-ib"; names separated by commas or white
   space) into host names in list order, each followed by '\n', snprintf-style into buf;
   *out_count (optional) gets the number of hosts. Syntax: manual section 8; limits: 9. */
CRES_API cres_result cres_hostlist_expand(const char *hostlist, char *buf, size_t cap,
                                          size_t *out_len, size_t *out_count, cres_error *err);
/* Expands Slurm's tasks-per-node form ("2(x3),1" is 2,2,2,1) into counts[0..*out_count);
   counts NULL and cap 0 ask for the count. */
CRES_API cres_result cres_tasks_per_node_expand(const char *text, int *counts, size_t cap,
                                                size_t *out_count, cres_error *err);

#ifdef __cplusplus
}
#endif

#endif /* CLUSTER_RESOLVER_H */

/* Stop now if you only need the API. The implementation follows. */

#if defined(__INTELLISENSE__) || defined(__JETBRAINS_IDE__)
#  define CLUSTER_RESOLVER_IMPLEMENTATION
#endif

#if defined(CLUSTER_RESOLVER_IMPLEMENTATION) && !defined(CLUSTER_RESOLVER_IMPLEMENTATION_ONCE)
#define CLUSTER_RESOLVER_IMPLEMENTATION_ONCE

/* ////////////////////////////////////////////////////////////////////////////////////////
   Implementation: configuration                                                   >>impl */

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#  define CRES__ENVIRON _environ /* <stdlib.h> */
#else
#  ifdef __cplusplus
extern "C" char **environ; /* POSIX: the process environment, declared by the program */
#  else
extern char **environ;
#  endif
#  define CRES__ENVIRON environ
#endif

/* jsmn is set up once per file, by its first #include: ours needs parent links (linear closing
   of brackets: without them a 40 MB pod list takes seconds), strict primitives and its code
   in this file. A program's own earlier #include <jsmn.h> must have been the same. */
#if defined(JSMN_H) && !defined(JSMN_PARENT_LINKS)
#  error "cluster_resolver.h: <jsmn.h> included before the implementation without \
JSMN_PARENT_LINKS: define it, JSMN_STRICT and JSMN_STATIC before that include, or include \
<jsmn.h> after the implementation"
#endif
#if defined(JSMN_H) && !defined(JSMN_STRICT)
#  error "cluster_resolver.h: <jsmn.h> included before the implementation without \
JSMN_STRICT: define it, JSMN_PARENT_LINKS and JSMN_STATIC before that include, or include \
<jsmn.h> after the implementation"
#endif
#ifdef JSMN_HEADER
#  error "cluster_resolver.h: JSMN_HEADER is defined (jsmn's code in another file, built \
with switches unknown here): the implementation's file needs jsmn's code; leave it undefined"
#endif
#ifndef JSMN_STATIC
#  define JSMN_STATIC
#endif
#ifndef JSMN_PARENT_LINKS
#  define JSMN_PARENT_LINKS
#endif
#ifndef JSMN_STRICT
#  define JSMN_STRICT
#endif
#include <jsmn.h>

#if defined(CRES_MALLOC) || defined(CRES_REALLOC) || defined(CRES_FREE)
#  if !defined(CRES_MALLOC) || !defined(CRES_REALLOC) || !defined(CRES_FREE)
#    error "cluster_resolver.h: define all of CRES_MALLOC, CRES_REALLOC and CRES_FREE, or none"
#  endif
#else
#  define CRES_MALLOC(sz) malloc(sz)
#  define CRES_REALLOC(p, sz) realloc(p, sz)
#  define CRES_FREE(p) free(p)
#endif

/* Limits on untrusted input; each stops a hostile or broken source from costing unbounded
   memory or time. */
#ifndef CRES_MAX_JSON_TOKENS
#  define CRES_MAX_JSON_TOKENS 1000000
#endif
#ifndef CRES_MAX_JSON_DEPTH
#  define CRES_MAX_JSON_DEPTH 128
#endif
#ifndef CRES_MAX_DOCUMENT_BYTES
#  define CRES_MAX_DOCUMENT_BYTES (16u * 1024u * 1024u)
#endif
#ifndef CRES_MAX_NAME_LENGTH
#  define CRES_MAX_NAME_LENGTH 255
#endif
#ifndef CRES_MAX_ADDRESS_LENGTH
#  define CRES_MAX_ADDRESS_LENGTH 1023
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define CRES__PRIVATE static __attribute__((unused))
#  define CRES__BYTE_ALIGNED __attribute__((aligned(1))) /* see "Footprint" below */
#  if defined(__MINGW32__) && defined(__MINGW_PRINTF_FORMAT) /* what mingw's vsnprintf implements */
#    define CRES__PRINTF(f, a) __attribute__((format(__MINGW_PRINTF_FORMAT, f, a)))
#  else
#    define CRES__PRINTF(f, a) __attribute__((format(printf, f, a)))
#  endif
#else
#  define CRES__PRIVATE static
#  define CRES__BYTE_ALIGNED
#  define CRES__PRINTF(f, a)
#endif

/* Compile switches: CLUSTER_RESOLVER_NO_<BACKEND> leaves a backend out; the HTTP layer goes
   with the last backend that needs it, the HPC helpers likewise. */
#if !defined(CLUSTER_RESOLVER_NO_K8S) || !defined(CLUSTER_RESOLVER_NO_GCE) || \
    !defined(CLUSTER_RESOLVER_NO_TPU)
#  define CRES__HTTP 1
#endif
#if !defined(CLUSTER_RESOLVER_NO_GCE) || !defined(CLUSTER_RESOLVER_NO_TPU)
#  define CRES__GOOGLE 1
#endif
#if !defined(CLUSTER_RESOLVER_NO_SLURM) || !defined(CLUSTER_RESOLVER_NO_MPI) || \
    !defined(CLUSTER_RESOLVER_NO_SAGEMAKER) || !defined(CLUSTER_RESOLVER_NO_PBS) || \
    !defined(CLUSTER_RESOLVER_NO_LSF) || !defined(CLUSTER_RESOLVER_NO_SGE) || \
    !defined(CLUSTER_RESOLVER_NO_FLUX)
#  define CRES__HPC 1
#endif
/* A left-out backend's create function: it says which switch left it out. */
#define CRES__LEFT_OUT(create, options_type, name, macro)                                        \
    CRES_API cres_result create(const options_type *o, cres_resolver **out, cres_error *err) {    \
        (void)o;                                                                                 \
        if (out) *out = NULL;                                                                    \
        cres__clear(err);                                                                        \
        return cres__fail(err, CRES_ERR_UNSUPPORTED, name ": left out of this build by " macro); \
    }

/* Footprint: a program built with -ffunction-sections -fdata-sections -Wl,--gc-sections
   should carry only the code and text it uses. Two things defeat that:
   - gcc puts a string literal that several functions share in the string section of one of
     them (.rodata.<function>.str1.1), and the linker keeps that whole section in every
     program using the literal; literals that static tables point to go in one section that
     every program using such a table keeps. So a large part (kubeconfig, Google credentials,
     auto) shares no literal with the small ones: it uses an array of its own (the vtables'
     names, cres__kcluster, cres__accept) or a literal of its own.
   - a table of pointers costs, besides the pointer, a 24-byte relocation per entry in a
     position-independent program. So lists of names are one literal, "A\0B\0", ending at
     an empty name (cres__next_name steps through it); other tables hold arrays, and
     cres_result_string is a switch.
   A literal holding "\0" cannot be merged with others: gcc puts it in the .rodata that every
   program using one such literal keeps whole. So name lists are named arrays, each in a
   section of its own, CRES__BYTE_ALIGNED: gcc would align an array of 8 bytes or more to 8,
   and one of 32 or more to 32, padding the program (text needs no alignment). The zero
   options a create function uses for NULL are a static that nothing writes: in .bss, which
   takes no room in the program file (a const one would go in .rodata, a memset in code).
   bench/footprint/run.py measures such programs; `make footprint-test` checks two against
   tests/footprint_limits.txt. */

#define CRES__DEFAULT_PORT 8470
#define CRES__SM_RESOURCE_CONFIG "/opt/ml/input/config/resourceconfig.json"
#define CRES__DEFAULT_TIMEOUT_MS 10000
#define CRES__DEFAULT_RETRIES 3
#define CRES__DEFAULT_MAX_RESPONSE (64u * 1024u * 1024u)
#define CRES__DEFAULT_RESOLVE_TIMEOUT_MS 60000

/* ////////////////////////////////////////////////////////////////////////////////////////
   Memory                                                                           >>alloc */

/* The default allocator as functions: every allocator the library keeps or hands out (to a
   transport, an exec hook, a backend of the program's) has both filled in and can be called. */
CRES__PRIVATE void *cres__std_alloc(void *user, size_t size) {
    (void)user;
    return CRES_MALLOC(size);
}

CRES__PRIVATE void cres__std_free(void *user, void *p) {
    (void)user;
    CRES_FREE(p);
}

static const cres_allocator cres__default_allocator = {cres__std_alloc, cres__std_free, 0};

/* a with the defaults filled in: NULL or zero is the default. */
CRES__PRIVATE cres_allocator cres__settled_allocator(const cres_allocator *a) {
    return a && a->alloc ? *a : cres__default_allocator;
}

/* A zero allocator is the default here too: one made outside the settled copies (a spec's,
   a resolver's) may still reach these. */
CRES__PRIVATE void *cres__alloc(const cres_allocator *a, size_t size) {
    if (size == 0) size = 1;
    return a->alloc ? a->alloc(a->user, size) : CRES_MALLOC(size);
}

CRES__PRIVATE void cres__free(const cres_allocator *a, const void *p) {
    void *q = (void *)(size_t)p; /* we own it; the const is for the reader's API */
    if (!q) return;
    if (a->free) a->free(a->user, q);
    else CRES_FREE(q);
}

/* Makes room for `need` elements; the runtime allocator has no realloc, so it copies. */
CRES__PRIVATE int cres__grow(const cres_allocator *a, void **items, size_t *cap, size_t elem,
                            size_t need) {
    size_t new_cap;
    void *p;
    if (need <= *cap) return 1;
    new_cap = *cap ? *cap * 2 : 4;
    if (new_cap < need) new_cap = need;
    if (new_cap > (size_t)-1 / elem) return 0;
    if (a->alloc && a->alloc != cres__std_alloc) {
        p = a->alloc(a->user, new_cap * elem);
        if (!p) return 0;
        if (*items) memcpy(p, *items, *cap * elem);
        cres__free(a, *items);
    } else {
        p = CRES_REALLOC(*items, new_cap * elem);
        if (!p) return 0;
    }
    *items = p;
    *cap = new_cap;
    return 1;
}

CRES__PRIVATE char *cres__strndup(const cres_allocator *a, const char *s, size_t n) {
    char *p = (char *)cres__alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

CRES__PRIVATE char *cres__strdup(const cres_allocator *a, const char *s) {
    return cres__strndup(a, s, strlen(s));
}

/* x then y in a new string, or NULL when out of memory. */
CRES__PRIVATE char *cres__concat(const cres_allocator *a, const char *x, const char *y) {
    size_t nx = strlen(x), ny = strlen(y);
    char *s = (char *)cres__alloc(a, nx + ny + 1);
    if (!s) return NULL;
    memcpy(s, x, nx);
    memcpy(s + nx, y, ny + 1);
    return s;
}

/* Copies an optional string option; 0 on out of memory. */
CRES__PRIVATE int cres__opt_copy(const cres_allocator *a, char **field, const char *value) {
    if (!value) return 1;
    *field = cres__strdup(a, value);
    return *field != NULL;
}

/* Copies a base URL without its trailing slashes (paths are appended with their own). */
CRES__PRIVATE int cres__url_copy(const cres_allocator *a, char **field, const char *value) {
    size_t n;
    if (!cres__opt_copy(a, field, value)) return 0;
    n = strlen(*field);
    while (n && (*field)[n - 1] == '/') (*field)[--n] = '\0';
    return 1;
}

/* ////////////////////////////////////////////////////////////////////////////////////////
   Errors                                                                          >>errors */

/* A switch, not a table of pointers (see "Footprint" in >>impl). */
CRES_API const char *cres_result_string(cres_result result) {
#define CRES__TEXT_CASE(name, text) \
    case name:                      \
        return text;
    switch (result) {
        CRES__RESULTS(CRES__TEXT_CASE)
    default:
        break;
    }
#undef CRES__TEXT_CASE
    return "unknown result";
}

CRES_API const char *cres_version_string(void) { return CLUSTER_RESOLVER_VERSION_STRING; }

CRES__PRIVATE void cres__clear(cres_error *err) {
    if (!err) return;
    err->result = CRES_OK;
    err->http_status = 0;
    err->message[0] = '\0';
}

/* Every failure inside the library is set the way a custom backend sets its own; its code
   is then the caller's value, not a returned call: gcc -Os makes `return f(...)` a jump
   after a copy of the caller's epilogue and its unwind notes, at every failure (1 KiB of a
   small program; see "Footprint" in >>impl). */
CRES_API cres_result cres_error_set(cres_error *err, cres_result result, const char *format, ...)
    CRES__PRINTF(3, 4);
#define cres__fail(err, result, ...)                                                          \
    (cres_error_set(err, result, __VA_ARGS__), (cres_result)(result))

CRES_API cres_result cres_error_set(cres_error *err, cres_result result, const char *format, ...) {
    char msg[CRES_ERROR_MESSAGE_SIZE]; /* an argument may be err->message: "mine: %s" */
    va_list ap;
    if (!err) return result;
    err->result = result;
    va_start(ap, format);
    vsnprintf(msg, sizeof msg, format, ap);
    va_end(ap);
    memcpy(err->message, msg, sizeof msg);
    return result;
}

/* An allocation failed: set, and its code the caller's value, as cres__fail does. */
CRES__PRIVATE void cres__set_oom(cres_error *err, const char *what) {
    cres_error_set(err, CRES_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
}
#define cres__oom(err, what) (cres__set_oom(err, what), (cres_result)CRES_ERR_OUT_OF_MEMORY)

/* Puts `prefix` before the message of a failure from a lower layer, and turns its code into
   `code` unless it is one that must stay (out of memory, limits). */
CRES__PRIVATE cres_result cres__wrap(cres_error *err, cres_result inner, cres_result code,
                                    const char *prefix) {
    cres_result r = inner;
    if (code != CRES_OK && inner != CRES_ERR_OUT_OF_MEMORY && inner != CRES_ERR_LIMIT) r = code;
    if (err) { /* prefix + old message, cut to fit */
        char old[CRES_ERROR_MESSAGE_SIZE];
        size_t room = sizeof err->message - 1, p = strlen(prefix), o;
        memcpy(old, err->message, sizeof old);
        old[sizeof old - 1] = '\0';
        if (!*old) /* a hook that failed without a word: never a bare ": " */
            snprintf(old, sizeof old, "failed without a message");
        if (p > room) p = room;
        o = strlen(old);
        if (o > room - p) o = room - p;
        memcpy(err->message, prefix, p);
        memcpy(err->message + p, old, o);
        err->message[p + o] = '\0';
        err->result = r;
    }
    return r;
}

/* Quotes untrusted text for a message: printable, escaped, cut to about cap - 32 bytes (48
   in a CRES__QUOTE_SIZE buffer; file paths get a CRES__PATH_QUOTE_SIZE one). */
CRES__PRIVATE const char *cres__quote(char *dst, size_t cap, const char *s, size_t n) {
    size_t o = 0, i;
    const size_t keep = cap - 32;
    dst[o++] = '"';
    for (i = 0; i < n && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == keep && n > keep + 3) {
            memcpy(dst + o, "...", 3);
            o += 3;
            break;
        }
        if (c == '"' || c == '\\') {
            dst[o++] = '\\';
            dst[o++] = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            o += (size_t)snprintf(dst + o, cap - o, "\\x%02x", c);
        } else {
            dst[o++] = (char)c;
        }
    }
    dst[o++] = '"';
    dst[o] = '\0';
    return dst;
}
#define CRES__QUOTE_SIZE 80
#define CRES__PATH_QUOTE_SIZE 160

/* cres__quote of a whole string. */
CRES__PRIVATE const char *cres__quote_str(char *dst, size_t cap, const char *s) {
    return cres__quote(dst, cap, s, strlen(s));
}

/* ////////////////////////////////////////////////////////////////////////////////////////
   Text output into the caller's buffer                                            >>writer */

typedef struct cres__writer {
    char *buf;
    size_t cap;
    size_t len; /* as if the buffer were large enough */
} cres__writer;

CRES__PRIVATE void cres__put(cres__writer *w, const char *s, size_t n) {
    if (w->len < w->cap) {
        size_t room = w->cap - w->len;
        memcpy(w->buf + w->len, s, n < room ? n : room);
    }
    w->len += n;
}

CRES__PRIVATE void cres__puts(cres__writer *w, const char *s) { cres__put(w, s, strlen(s)); }

/* One character: no literal shared with other parts (see "Footprint" in >>impl). */
CRES__PRIVATE void cres__put_char(cres__writer *w, char c) { cres__put(w, &c, 1); }

CRES__PRIVATE void cres__put_int(cres__writer *w, long long v) {
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%lld", v);
    cres__put(w, tmp, (size_t)n);
}

/* n bytes as a JSON string (a NUL as \u0000, which the JSON reader refuses again). */
CRES__PRIVATE void cres__put_json_string_n(cres__writer *w, const char *s, size_t n) {
    const char *run = s, *end = s + n;
    cres__put(w, "\"", 1);
    for (; s < end; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        cres__put(w, run, (size_t)(s - run));
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            cres__put(w, esc, 2);
        } else {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", c);
            cres__put(w, esc, 6);
        }
        run = s + 1;
    }
    cres__put(w, run, (size_t)(s - run));
    cres__put(w, "\"", 1);
}

CRES__PRIVATE void cres__put_json_string(cres__writer *w, const char *s) {
    cres__put_json_string_n(w, s, strlen(s));
}

/* Ends the text: NUL-terminates (cutting if needed) and applies the snprintf contract. */
CRES__PRIVATE cres_result cres__finish(cres__writer *w, size_t *out_len, cres_error *err) {
    if (out_len) *out_len = w->len;
    if (!w->buf) return CRES_OK; /* a length query */
    if (w->len < w->cap) {
        w->buf[w->len] = '\0';
        return CRES_OK;
    }
    if (w->cap) w->buf[w->cap - 1] = '\0';
    return cres__fail(err, CRES_ERR_BUFFER_TOO_SMALL,
                      "the text needs %zu bytes, the buffer has %zu", w->len + 1, w->cap);
}

CRES__PRIVATE cres_result cres__start(cres__writer *w, char *buf, size_t cap, cres_error *err) {
    w->buf = buf;
    w->cap = buf ? cap : 0;
    w->len = 0;
    if (!buf && cap)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "buf is NULL but cap is %zu", cap);
    return CRES_OK;
}

typedef void (*cres__render_fn)(cres__writer *w, const void *x);

/* The text fn writes, in a new string (measured first). NULL when out of memory. */
CRES__PRIVATE char *cres__render(const cres_allocator *a, cres__render_fn fn, const void *x) {
    cres__writer w;
    char *s;
    size_t n;
    cres__start(&w, NULL, 0, NULL);
    fn(&w, x);
    n = w.len + 1;
    if (!(s = (char *)cres__alloc(a, n))) return NULL;
    cres__start(&w, s, n, NULL);
    fn(&w, x);
    s[w.len] = '\0';
    return s;
}

/* ////////////////////////////////////////////////////////////////////////////////////////
   Numbers and names                                                               >>text */

/* Texts of several parts, as arrays: a shared literal would sit in one part's string section,
   which every program using it keeps whole (see "Footprint" in >>impl). */
CRES__BYTE_ALIGNED CRES__PRIVATE const char cres__decimal_digits[] = "0123456789",
                                            cres__hostname_var[] = "HOSTNAME";

/* The name after p in a name list, "A\0B\0", which ends at an empty name (see "Footprint"
   in >>impl). */
CRES__PRIVATE const char *cres__next_name(const char *p) { return p + strlen(p) + 1; }

/* Parses exactly `-?[0-9]+`; 1 = ok, 0 = not that shape, -1 = too large for long long. */
CRES__PRIVATE int cres__parse_decimal(const char *s, size_t n, long long *out) {
    size_t i = 0;
    int neg = 0;
    unsigned long long v = 0;
    if (n > 0 && s[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == n) return 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        if (v > (unsigned long long)LLONG_MAX / 10) return -1;
        v = v * 10 + (unsigned long long)(s[i] - '0');
        if (v > (unsigned long long)LLONG_MAX) return -1;
    }
    *out = neg ? -(long long)v : (long long)v;
    return 1;
}

CRES__PRIVATE size_t cres__utf8_len(const unsigned char *p, size_t avail);

/* Non-zero when s has a control character (or a space, if asked) or is not valid UTF-8:
   such a name could not be written back as JSON or read safely in a message. */
CRES__PRIVATE int cres__bad_text(const char *s, int reject_space) {
    size_t n = strlen(s), i = 0, k;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f || (reject_space && c == ' ')) return 1;
        if (!(k = cres__utf8_len((const unsigned char *)s + i, n - i))) return 1;
        i += k;
    }
    return 0;
}

CRES__PRIVATE cres_result cres__check_job_name(const char *job, cres_error *err) {
    char q[CRES__QUOTE_SIZE];
    size_t n;
    if (!job) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "job name is NULL");
    n = strlen(job);
    if (n == 0) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "job name is empty");
    if (n > CRES_MAX_NAME_LENGTH)
        return cres__fail(err, CRES_ERR_LIMIT,
                          "job name %s is %zu bytes, more than the limit of %d",
                          cres__quote(q, sizeof q, job, n), n, CRES_MAX_NAME_LENGTH);
    if (cres__bad_text(job, 0))
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "job name %s contains a control character or invalid UTF-8",
                          cres__quote(q, sizeof q, job, n));
    return CRES_OK;
}

CRES__PRIVATE cres_result cres__check_address(const char *job, int index, const char *address,
                                             cres_error *err) {
    char qj[CRES__QUOTE_SIZE], qa[CRES__QUOTE_SIZE];
    size_t n;
    cres__quote_str(qj, sizeof qj, job);
    if (!address)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "job %s task %d: address is NULL", qj,
                          index);
    n = strlen(address);
    if (n == 0)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "job %s task %d: address is empty", qj,
                          index);
    if (n > CRES_MAX_ADDRESS_LENGTH)
        return cres__fail(err, CRES_ERR_LIMIT,
                          "job %s task %d: address is %zu bytes, more than the limit of %d", qj,
                          index, n, CRES_MAX_ADDRESS_LENGTH);
    if (cres__bad_text(address, 1))
        return cres__fail(
            err, CRES_ERR_INVALID_ARGUMENT,
            "job %s task %d: address %s contains a space, a control character or invalid UTF-8", qj,
            index, cres__quote(qa, sizeof qa, address, n));
    return CRES_OK;
}

/* Splits "host:port", "[v6]:port" or "host". host points into addr; port is -1 when absent.
   An address with several colons and no brackets is a bare IPv6 host without a port. */
CRES__PRIVATE int cres__split_address(const char *addr, const char **host, size_t *host_len,
                                     int *port) {
    const char *colon, *end = addr + strlen(addr);
    long long p;
    *port = -1;
    if (addr[0] == '[') {
        const char *close = strchr(addr, ']');
        if (!close) return 0;
        *host = addr + 1;
        *host_len = (size_t)(close - addr - 1);
        colon = close[1] == ':' ? close + 1 : NULL;
        if (!colon && close[1] != '\0') return 0;
    } else {
        colon = strrchr(addr, ':');
        if (colon && memchr(addr, ':', (size_t)(colon - addr))) colon = NULL; /* bare IPv6 */
        *host = addr;
        *host_len = colon ? (size_t)(colon - addr) : (size_t)(end - addr);
    }
    if (colon) {
        if (cres__parse_decimal(colon + 1, (size_t)(end - colon - 1), &p) != 1 || p < 0 ||
            p > 65535)
            return 0;
        *port = (int)p;
    }
    return 1;
}

CRES__PRIVATE int cres__is_blank(const char *s) {
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') return 0;
    return 1;
}

/* Natural order: digit runs compare as numbers, so worker-2 comes before worker-10; names
   equal as numbers (n1, n01) fall back to strcmp, so the order is total. */
CRES__PRIVATE int cres__natural_cmp(const char *a, const char *b) {
    const char *a0 = a, *b0 = b;
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            const char *x = a, *y = b;
            size_t nx, ny;
            while (*x == '0') x++;
            while (*y == '0') y++;
            for (a = x; *a >= '0' && *a <= '9'; a++) {}
            for (b = y; *b >= '0' && *b <= '9'; b++) {}
            nx = (size_t)(a - x);
            ny = (size_t)(b - y);
            if (nx != ny) return nx < ny ? -1 : 1;
            if (nx && memcmp(x, y, nx) != 0) return memcmp(x, y, nx) < 0 ? -1 : 1;
        } else {
            if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    if (*a || *b) return *a ? 1 : -1;
    return strcmp(a0, b0) < 0 ? -1 : strcmp(a0, b0) > 0;
}

/* "host:port", with brackets around an IPv6 literal. */
CRES__PRIVATE char *cres__join_host_port(const cres_allocator *a, const char *host, int port) {
    int v6 = strchr(host, ':') != NULL && host[0] != '[';
    size_t n = strlen(host) + 16;
    char *s = (char *)cres__alloc(a, n);
    if (s) snprintf(s, n, v6 ? "[%s]:%d" : "%s:%d", host, port);
    return s;
}

/* Reads a small file into a new string, its trailing whitespace cut when trim is set.
   Missing file: CRES_ERR_ENVIRONMENT; larger than max: CRES_ERR_LIMIT. */
CRES__PRIVATE cres_result cres__read_file(const cres_resolver *r, const char *path, size_t max,
                                          int trim, char **out, cres_error *err) {
    FILE *f;
    char *buf;
    size_t n;
    char q[CRES__QUOTE_SIZE];
    long size = -1;
    size_t limit = max;
    int failed;
    *out = NULL;
    cres__quote_str(q, sizeof q, path); /* for messages */
    f = fopen(path, "rb");
    if (!f) return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: cannot open %s", r->vtable->name, q);
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) != 0)
        size = -1;
    if (size >= 0 && (unsigned long)size < max) max = (size_t)size + 1; /* room to see growth */
    buf = (char *)cres__alloc(&r->config.allocator, max + 1);
    if (!buf) {
        fclose(f);
        return cres__oom(err, r->vtable->name);
    }
    n = fread(buf, 1, max + 1, f);
    failed = ferror(f); /* a directory opens, then fails to read (EISDIR) */
    fclose(f);
    if (failed) {
        cres__free(&r->config.allocator, buf);
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: cannot read %s (a directory?)",
                          r->vtable->name, q);
    }
    if (n > max) {
        cres__free(&r->config.allocator, buf);
        if (max < limit)
            return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s changed while it was read",
                              r->vtable->name, q);
        return cres__fail(err, CRES_ERR_LIMIT, "%s: %s is larger than %zu bytes",
                          r->vtable->name, q, limit);
    }
    while (trim && n &&
           (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
        n--;
    buf[n] = '\0';
    if (strlen(buf) != n) {
        cres__free(&r->config.allocator, buf);
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s contains a NUL byte",
                          r->vtable->name, q);
    }
    *out = buf;
    return CRES_OK;
}

/* A small file (a token, a namespace, a hostfile) without its trailing whitespace. */
CRES__PRIVATE cres_result cres__read_small_file(const cres_resolver *r, const char *path,
                                                size_t max, char **out, cres_error *err) {
    return cres__read_file(r, path, max, 1, out, err);
}

/* ////////////////////////////////////////////////////////////////////////////////////////
   JSON: a strict validating pass, then jsmn's tokens                                >>json */

typedef struct cres__json {
    const char *s;
    size_t len;
    jsmntok_t *t;   /* count tokens plus one JSMN_UNDEFINED sentinel */
    int count;
    const cres_allocator *a;
} cres__json;

typedef struct cres__scan {
    const char *s;
    size_t n, pos;
    const char *why;
} cres__scan;

CRES__PRIVATE void cres__skip_ws(cres__scan *c) {
    while (c->pos < c->n) {
        char ch = c->s[c->pos];
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') break;
        c->pos++;
    }
}

CRES__PRIVATE int cres__hex(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Length of the UTF-8 sequence at p (RFC 3629: no overlongs, surrogates or > U+10FFFF),
   or 0 when it is not valid. */
CRES__PRIVATE size_t cres__utf8_len(const unsigned char *p, size_t avail) {
    unsigned c = p[0];
    size_t n, i;
    unsigned lo = 0x80, hi = 0xbf;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else return 0;
    if (avail < n) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return n;
}

/* The code unit of the \uXXXX escape at s[at] (s of n bytes), or -1 when it is not one. */
CRES__PRIVATE long cres__escape_unit(const char *s, size_t n, size_t at) {
    long v = 0;
    size_t i;
    if (at + 6 > n || s[at] != '\\' || s[at + 1] != 'u') return -1;
    for (i = 2; i < 6; i++) {
        int h = cres__hex(s[at + i]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

/* A \uXXXX escape, or a surrogate pair of two. NUL and unpaired surrogates are refused:
   a C string cannot carry them faithfully. */
CRES__PRIVATE int cres__scan_unicode_escape(cres__scan *c) {
    long unit = cres__escape_unit(c->s, c->n, c->pos), low;
    c->why = "bad \\u escape";
    if (unit < 0) return 0;
    if (unit == 0) {
        c->why = "\\u0000 (NUL) in a string";
        return 0;
    }
    c->pos += 6;
    if (unit < 0xd800 || unit > 0xdfff) return 1;
    c->why = "unpaired UTF-16 surrogate in a \\u escape";
    if (unit > 0xdbff) return 0;
    low = cres__escape_unit(c->s, c->n, c->pos);
    if (low < 0xdc00 || low > 0xdfff) return 0;
    c->pos += 6;
    return 1;
}

CRES__PRIVATE int cres__scan_string(cres__scan *c) {
    c->pos++; /* opening quote */
    while (c->pos < c->n) {
        unsigned char ch = (unsigned char)c->s[c->pos];
        if (ch == '"') {
            c->pos++;
            return 1;
        }
        if (ch < 0x20) {
            c->why = "control character in a string"; /* a NUL is named by the caller */
            return 0;
        }
        if (ch == '\\') {
            char e;
            if (c->pos + 1 >= c->n) break;
            e = c->s[c->pos + 1];
            if (e == 'u') {
                if (!cres__scan_unicode_escape(c)) return 0;
            } else if (strchr("\"\\/bfnrt", e) && e) {
                c->pos += 2;
            } else {
                c->why = "bad escape in a string";
                return 0;
            }
        } else if (ch < 0x80) {
            c->pos++;
        } else {
            size_t k = cres__utf8_len((const unsigned char *)c->s + c->pos, c->n - c->pos);
            if (!k) {
                c->why = "invalid UTF-8 in a string";
                return 0;
            }
            c->pos += k;
        }
    }
    c->why = "unterminated string";
    return 0;
}

CRES__PRIVATE int cres__scan_digits(cres__scan *c) {
    size_t start = c->pos;
    while (c->pos < c->n && c->s[c->pos] >= '0' && c->s[c->pos] <= '9') c->pos++;
    return c->pos > start;
}

CRES__PRIVATE int cres__scan_number(cres__scan *c) {
    c->why = "bad number";
    if (c->s[c->pos] == '-') c->pos++;
    if (c->pos < c->n && c->s[c->pos] == '0') c->pos++;
    else if (!cres__scan_digits(c)) return 0;
    if (c->pos < c->n && c->s[c->pos] == '.') {
        c->pos++;
        if (!cres__scan_digits(c)) return 0;
    }
    if (c->pos < c->n && (c->s[c->pos] == 'e' || c->s[c->pos] == 'E')) {
        c->pos++;
        if (c->pos < c->n && (c->s[c->pos] == '+' || c->s[c->pos] == '-')) c->pos++;
        if (!cres__scan_digits(c)) return 0;
    }
    return 1;
}

CRES__PRIVATE int cres__scan_literal(cres__scan *c) {
    /* see "Footprint" in >>impl */
    CRES__BYTE_ALIGNED static const char words[][6] = {"true", "false", "null"};
    size_t i;
    for (i = 0; i < 3; i++) {
        size_t k = strlen(words[i]);
        if (c->n - c->pos >= k && memcmp(c->s + c->pos, words[i], k) == 0) {
            c->pos += k;
            return 1;
        }
    }
    c->why = "expected a value";
    return 0;
}

/* An object key at c->pos and its ':', after which the value comes. */
CRES__PRIVATE int cres__scan_key(cres__scan *c) {
    if (c->s[c->pos] != '"') {
        c->why = "expected a string key";
        return 0;
    }
    if (!cres__scan_string(c)) return 0;
    cres__skip_ws(c);
    if (c->pos >= c->n || c->s[c->pos] != ':') {
        c->why = "expected ':' after a key";
        return 0;
    }
    c->pos++;
    return 1;
}

/* A string, number or literal at c->pos. */
CRES__PRIVATE int cres__scan_scalar(cres__scan *c) {
    char ch = c->s[c->pos];
    if (ch == '"') return cres__scan_string(c);
    if (ch == '-' || (ch >= '0' && ch <= '9')) return cres__scan_number(c);
    return cres__scan_literal(c);
}

/* Checks RFC 8259 syntax of the value at c->pos in one pass, moves past it and counts the
   tokens jsmn will make for it; with `whole`, only white space may follow. Returns CRES_OK,
   CRES_ERR_LIMIT or CRES_ERR_INVALID_JSON, with c->why and c->pos. */
CRES__PRIVATE cres_result cres__json_check_value(cres__scan *c, int whole, size_t *out_tokens) {
    char stack[CRES_MAX_JSON_DEPTH];
    int depth = 0;
    size_t tokens = 0;
    enum { VALUE, KEY, AFTER } state = VALUE;
    for (;;) {
        cres__skip_ws(c);
        if (state == AFTER && depth == 0) {
            if (whole && c->pos != c->n) {
                c->why = "unexpected text after the document";
                return CRES_ERR_INVALID_JSON;
            }
            *out_tokens = tokens;
            return CRES_OK;
        }
        if (c->pos >= c->n) {
            c->why = "unexpected end of the document";
            return CRES_ERR_INVALID_JSON;
        }
        if (state != AFTER && ++tokens > (size_t)CRES_MAX_JSON_TOKENS) {
            c->why = "more tokens than the limit of " CRES__STR(CRES_MAX_JSON_TOKENS);
            return CRES_ERR_LIMIT;
        }
        if (state == KEY) {
            if (!cres__scan_key(c)) return CRES_ERR_INVALID_JSON;
            state = VALUE;
        } else if (state == VALUE) {
            char ch = c->s[c->pos];
            state = AFTER;
            if (ch == '{' || ch == '[') {
                if (depth == CRES_MAX_JSON_DEPTH) {
                    c->why =
                        "values nested deeper than the limit of " CRES__STR(CRES_MAX_JSON_DEPTH);
                    return CRES_ERR_LIMIT;
                }
                stack[depth++] = ch;
                c->pos++;
                cres__skip_ws(c);
                if (c->pos < c->n && c->s[c->pos] == (ch == '{' ? '}' : ']')) {
                    c->pos++;
                    depth--;
                } else {
                    state = ch == '{' ? KEY : VALUE;
                }
            } else if (!cres__scan_scalar(c)) {
                return CRES_ERR_INVALID_JSON;
            }
        } else {
            char ch = c->s[c->pos], open = stack[depth - 1];
            if (ch == ',') {
                c->pos++;
                state = open == '{' ? KEY : VALUE;
            } else if ((ch == '}' && open == '{') || (ch == ']' && open == '[')) {
                c->pos++;
                depth--;
            } else {
                c->why = open == '{' ? "expected ',' or '}'" : "expected ',' or ']'";
                return CRES_ERR_INVALID_JSON;
            }
        }
    }
}

CRES__PRIVATE cres_result cres__json_syntax_error(const cres__scan *c, cres_result r,
                                                  const char *what, cres_result bad,
                                                  cres_error *err) {
    if (r == CRES_ERR_LIMIT) return cres__fail(err, r, "%s: JSON has %s", what, c->why);
    /* a NUL is named wherever it is: after the document, a length counting the terminator */
    return cres__fail(err, bad, "%s: invalid JSON at offset %zu: %s", what, c->pos,
                      c->pos < c->n && !c->s[c->pos] ? "a NUL byte" : c->why);
}

/* Runs jsmn over s[0..len), a value already checked to make `tokens` tokens, into *buf
   (grown as needed, kept by the caller for reuse), and points d at the result. 1 = ok,
   0 = out of memory, -1 = jsmn refused it (a bare number or literal). */
CRES__PRIVATE int cres__json_tokenize(cres__json *d, const char *s, size_t len, size_t tokens,
                                      jsmntok_t **buf, size_t *cap) {
    jsmn_parser p;
    int n;
    if (!cres__grow(d->a, (void **)buf, cap, sizeof **buf, tokens + 1)) return 0;
    d->s = s;
    d->len = len;
    d->t = *buf;
    jsmn_init(&p);
    n = jsmn_parse(&p, s, len, d->t, (unsigned)tokens + 1);
    if (n < 0 || (size_t)n != tokens) return -1;
    d->count = n;
    memset(&d->t[n], 0, sizeof d->t[n]); /* a sentinel past the end */
    d->t[n].parent = -1;
    return 1;
}

/* Parses a whole document. `what` starts messages ("TF_CONFIG"); syntax errors get `bad`. */
CRES__PRIVATE cres_result cres__json_parse(cres__json *d, const char *s, size_t len,
                                          const cres_allocator *a, const char *what,
                                          cres_result bad, cres_error *err) {
    cres__scan c;
    size_t tokens = 0, cap;
    cres_result r;
    int n;
    memset(d, 0, sizeof *d);
    d->a = a;
    if (len > (size_t)INT_MAX / 2)
        return cres__fail(err, CRES_ERR_LIMIT, "%s: %zu bytes is too large to parse", what, len);
    c.s = s;
    c.n = len;
    c.pos = 0;
    c.why = "";
    r = cres__json_check_value(&c, 1, &tokens);
    if (r != CRES_OK) return cres__json_syntax_error(&c, r, what, bad, err);
    cap = 0;
    n = cres__json_tokenize(d, s, len, tokens, &d->t, &cap);
    if (n == 0) return cres__oom(err, what);
    if (n < 0) { /* only a bare number or literal gets here: jsmn wants a container */
        cres__free(a, d->t);
        d->t = NULL;
        return cres__fail(err, bad, "%s: expected a JSON object", what);
    }
    return CRES_OK;
}

/* cres__json_parse for a document that is not an HTTP body (environment, file, caller's text):
   over CRES_MAX_DOCUMENT_BYTES is CRES_ERR_LIMIT before any parsing. */
CRES__PRIVATE cres_result cres__json_parse_document(cres__json *d, const char *s, size_t len,
                                                    const cres_allocator *a, const char *what,
                                                    cres_result bad, cres_error *err) {
    memset(d, 0, sizeof *d);
    d->a = a;
    if (len > CRES_MAX_DOCUMENT_BYTES)
        return cres__fail(err, CRES_ERR_LIMIT, "%s: %zu bytes is more than the limit of %u", what,
                          len, (unsigned)CRES_MAX_DOCUMENT_BYTES);
    return cres__json_parse(d, s, len, a, what, bad, err);
}

CRES__PRIVATE void cres__json_free(cres__json *d) {
    cres__free(d->a, d->t);
    d->t = NULL;
}

CRES__PRIVATE int cres__json_is(const cres__json *d, int i, jsmntype_t type) {
    return i >= 0 && i < d->count && d->t[i].type == type;
}

/* The index just past token i and everything inside it. Tokens come in document order, so
   a container's end is found by binary search on the start offsets: skipping a pod's
   managedFields costs a few comparisons, not a walk. */
CRES__PRIVATE int cres__json_next(const cres__json *d, int i) {
    const jsmntok_t *t = d->t;
    int lo = i + 1, hi = d->count, pending = t[i].size;
    if (t[i].type == JSMN_OBJECT || t[i].type == JSMN_ARRAY) {
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (t[mid].start < t[i].end) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
    while (pending > 0 && lo < d->count) { /* a key: it and its value */
        pending += t[lo].size - 1;
        lo++;
    }
    return lo;
}

CRES__PRIVATE int cres__json_is_null(const cres__json *d, int i) {
    return cres__json_is(d, i, JSMN_PRIMITIVE) && d->s[d->t[i].start] == 'n';
}

/* Decodes a checked JSON string body into dst (the length never grows). Returns the length,
   or -1 for \u0000 or a lone surrogate, which a C string cannot carry faithfully. */
CRES__PRIVATE long cres__json_unescape(const char *s, size_t n, char *dst) {
    /* an escape's letter, then the character it stands for (see "Footprint" in >>impl) */
    CRES__BYTE_ALIGNED static const char named[] = "b\bf\fn\nr\rt\t";
    size_t i = 0, o = 0;
    while (i < n) {
        const char *e;
        long cp, lo;
        int more;
        if (s[i] != '\\') {
            dst[o++] = s[i++];
            continue;
        }
        if (s[i + 1] != 'u') { /* \" \\ \/ stand for themselves */
            for (e = named; *e && *e != s[i + 1]; e += 2) {
            }
            dst[o++] = *e ? e[1] : s[i + 1];
            i += 2;
            continue;
        }
        cp = cres__escape_unit(s, n, i);
        i += 6;
        if (cp <= 0 || (cp >= 0xdc00 && cp <= 0xdfff)) return -1;
        if (cp >= 0xd800 && cp <= 0xdbff) {
            lo = cres__escape_unit(s, n, i);
            if (lo < 0xdc00 || lo > 0xdfff) return -1;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            i += 6;
        }
        if (cp < 0x80) {
            dst[o++] = (char)cp;
            continue;
        }
        /* UTF-8: a lead byte saying how many 6-bit continuation bytes follow, then those */
        more = cp < 0x800 ? 1 : cp < 0x10000 ? 2 : 3;
        dst[o++] = (char)((0xff00 >> (more + 1)) | (cp >> (6 * more)));
        while (more--) dst[o++] = (char)(0x80 | ((cp >> (6 * more)) & 0x3f));
    }
    return (long)o;
}

/* A newly allocated copy of string token i. 1 = ok, 0 = out of memory, -1 = contains NUL. */
CRES__PRIVATE int cres__json_strdup(const cres__json *d, int i, char **out) {
    const jsmntok_t *t = &d->t[i];
    size_t n = (size_t)(t->end - t->start);
    long k;
    char *p = (char *)cres__alloc(d->a, n + 1);
    *out = NULL;
    if (!p) return 0;
    k = cres__json_unescape(d->s + t->start, n, p);
    if (k < 0) {
        cres__free(d->a, p);
        return -1;
    }
    p[k] = '\0';
    *out = p;
    return 1;
}

/* Does string token i equal `lit`? Escapes in the token are decoded first. */
CRES__PRIVATE int cres__json_eq(const cres__json *d, int i, const char *lit) {
    const jsmntok_t *t = &d->t[i];
    const char *s = d->s + t->start;
    size_t n = (size_t)(t->end - t->start), k = strlen(lit);
    char tmp[64];
    long m;
    /* decoding only shortens; our keys are short */
    if (t->type != JSMN_STRING || n < k || n >= sizeof tmp) return 0;
    m = cres__json_unescape(s, n, tmp);
    return m == (long)k && memcmp(tmp, lit, k) == 0;
}

/* Finds key in object token obj. Returns CRES_OK with *out = value index or -1 when absent;
   a key given twice is an error. */
CRES__PRIVATE cres_result cres__json_member(const cres__json *d, int obj, const char *key,
                                           int *out, const char *what, cres_result bad,
                                           cres_error *err) {
    int k = obj + 1, n;
    *out = -1;
    for (n = 0; n < d->t[obj].size; n++) {
        if (cres__json_eq(d, k, key)) {
            if (*out >= 0) return cres__fail(err, bad, "%s: key \"%s\" appears twice", what, key);
            *out = k + 1;
        }
        k = cres__json_next(d, k + 1);
    }
    return CRES_OK;
}

/* Finds several keys of object obj in one pass: out[i] = value token or -1. */
CRES__PRIVATE void cres__json_pick(const cres__json *d, int obj, const char *const *keys, int *out,
                                   int n) {
    int k = obj + 1, m, i;
    for (i = 0; i < n; i++) out[i] = -1;
    if (!cres__json_is(d, obj, JSMN_OBJECT)) return;
    for (m = 0; m < d->t[obj].size; m++) {
        for (i = 0; i < n; i++)
            if (out[i] < 0 && cres__json_eq(d, k, keys[i])) out[i] = k + 1;
        k = cres__json_next(d, k + 1);
    }
}

/* cres__json_pick with the keys in one literal, "a\0b\0" (see "Footprint" in >>impl). */
CRES__PRIVATE void cres__json_pick_packed(const cres__json *d, int obj, const char *packed,
                                          int *out, int n) {
    const char *keys[8];
    int i;
    for (i = 0; i < n && i < 8; i++, packed += strlen(packed) + 1) keys[i] = packed;
    cres__json_pick(d, obj, keys, out, i);
}

/* The value at a path of n keys below object obj ("spec\0template\0spec"), or -1. */
CRES__PRIVATE int cres__json_dig(const cres__json *d, int obj, const char *path, int n) {
    int v = obj;
    for (; n > 0 && v >= 0; n--, path += strlen(path) + 1) {
        obj = v;
        cres__json_pick(d, obj, &path, &v, 1);
    }
    return v;
}

/* Text of token i quoted for a message. */
CRES__PRIVATE const char *cres__json_quote(const cres__json *d, int i, char *dst, size_t cap) {
    const jsmntok_t *t = &d->t[i];
    if (t->type == JSMN_OBJECT) return "an object";
    if (t->type == JSMN_ARRAY) return "a list";
    if (t->type == JSMN_PRIMITIVE) {
        size_t n = (size_t)(t->end - t->start);
        if (n > 40) n = 40;
        snprintf(dst, cap, "%.*s", (int)n, d->s + t->start);
        return dst;
    }
    return cres__quote(dst, cap, d->s + t->start, (size_t)(t->end - t->start));
}

/* Reads token i as a task index (a JSON integer, or a decimal string when strings_ok).
   On failure writes "must be ..." into why. */
CRES__PRIVATE int cres__json_index(const cres__json *d, int i, int strings_ok, int *out,
                                  char *why, size_t cap) {
    const jsmntok_t *t = &d->t[i];
    const char *s = d->s + t->start;
    size_t n = (size_t)(t->end - t->start);
    char q[CRES__QUOTE_SIZE];
    long long v = 0;
    int ok;
    int is_number = t->type == JSMN_PRIMITIVE && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'));
    if (!is_number && !(strings_ok && t->type == JSMN_STRING)) {
        snprintf(why, cap, "must be an integer, not %s", cres__json_quote(d, i, q, sizeof q));
        return 0;
    }
    ok = cres__parse_decimal(s, n, &v);
    if (ok == 0) {
        snprintf(why, cap, "must be an integer, not %s", cres__json_quote(d, i, q, sizeof q));
        return 0;
    }
    if (ok < 0 || v > INT_MAX) {
        snprintf(why, cap, "is out of range (0 to %d): %s", INT_MAX,
                 cres__json_quote(d, i, q, sizeof q));
        return 0;
    }
    if (v < 0) {
        snprintf(why, cap, "must not be negative: %s", cres__json_quote(d, i, q, sizeof q));
        return 0;
    }
    *out = (int)v;
    return 1;
}

/* ////////////////////////////////////////////////////////////////////////////////////////
   Cluster specs                                                                     >>spec */

typedef struct cres__job {
    cres_job pub;   /* name and tasks are owned; tasks is really mutable */
    size_t cap;
} cres__job;

struct cres_cluster_spec {
    cres_allocator alloc;
    cres__job *jobs; /* sorted by name */
    size_t count, cap;
};

CRES__PRIVATE cres_task *cres__tasks(cres__job *j) { return (cres_task *)(size_t)j->pub.tasks; }

CRES__PRIVATE cres_result cres__check_allocator(const cres_allocator *a, cres_error *err) {
    if (a && (!a->alloc) != (!a->free))
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "allocator: set both alloc and free, or neither");
    return CRES_OK;
}

CRES_API cres_result cres_spec_create(const cres_allocator *alloc, cres_cluster_spec **out,
                                      cres_error *err) {
    cres_cluster_spec *s;
    cres_allocator settled;
    cres_result r;
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "spec: out is NULL");
    *out = NULL;
    if ((r = cres__check_allocator(alloc, err)) != CRES_OK) return r;
    settled = cres__settled_allocator(alloc);
    s = (cres_cluster_spec *)cres__alloc(&settled, sizeof *s);
    if (!s) return cres__oom(err, "spec");
    memset(s, 0, sizeof *s);
    s->alloc = settled;
    *out = s;
    return CRES_OK;
}

CRES_API void cres_spec_free(cres_cluster_spec *s) {
    size_t i, k;
    if (!s) return;
    for (i = 0; i < s->count; i++) {
        cres__job *j = &s->jobs[i];
        for (k = 0; k < j->pub.tasks_count; k++) cres__free(&s->alloc, j->pub.tasks[k].address);
        cres__free(&s->alloc, j->pub.tasks);
        cres__free(&s->alloc, j->pub.name);
    }
    cres__free(&s->alloc, s->jobs);
    {
        cres_allocator a = s->alloc;
        cres__free(&a, s);
    }
}

/* Binary search: the job's position, or where it would go (*found = 0). */
CRES__PRIVATE size_t cres__find_job(const cres_cluster_spec *s, const char *name, int *found) {
    size_t lo = 0, hi = s->count;
    *found = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->jobs[mid].pub.name, name);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

CRES__PRIVATE size_t cres__find_task(const cres_job *j, int index, int *found) {
    size_t lo = 0, hi = j->tasks_count;
    *found = 0;
    if (hi && j->tasks[hi - 1].index < index) return hi; /* appending in order: O(1) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->tasks[mid].index == index) {
            *found = 1;
            return mid;
        }
        if (j->tasks[mid].index < index) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The job named `name`, created empty when missing (then *created = 1, if asked). */
CRES__PRIVATE cres_result cres__spec_job_created(cres_cluster_spec *s, const char *name,
                                                cres__job **out, int *created, cres_error *err) {
    int found;
    size_t at = cres__find_job(s, name, &found);
    char *copy;
    if (created) *created = !found;
    if (found) {
        *out = &s->jobs[at];
        return CRES_OK;
    }
    if (!cres__grow(&s->alloc, (void **)&s->jobs, &s->cap, sizeof *s->jobs, s->count + 1))
        return cres__oom(err, "spec");
    copy = cres__strdup(&s->alloc, name);
    if (!copy) return cres__oom(err, "spec");
    memmove(&s->jobs[at + 1], &s->jobs[at], (s->count - at) * sizeof *s->jobs);
    memset(&s->jobs[at], 0, sizeof *s->jobs);
    s->jobs[at].pub.name = copy;
    s->count++;
    *out = &s->jobs[at];
    return CRES_OK;
}

CRES__PRIVATE cres_result cres__spec_job(cres_cluster_spec *s, const char *name, cres__job **out,
                                        cres_error *err) {
    return cres__spec_job_created(s, name, out, NULL, err);
}

/* Undoes a failed call: drops tasks 0..count-1 of job j, and the job itself if the call
   created it, so that a failed add leaves the spec as it was. */
CRES__PRIVATE void cres__spec_undo(cres_cluster_spec *s, cres__job *j, int count, int created) {
    cres_task *tasks = cres__tasks(j);
    size_t k, kept = 0;
    for (k = 0; k < j->pub.tasks_count; k++) {
        if (tasks[k].index < count) cres__free(&s->alloc, tasks[k].address);
        else tasks[kept++] = tasks[k];
    }
    j->pub.tasks_count = kept;
    if (created) {
        size_t at = (size_t)(j - s->jobs);
        cres__free(&s->alloc, j->pub.tasks);
        cres__free(&s->alloc, j->pub.name);
        memmove(&s->jobs[at], &s->jobs[at + 1], (s->count - at - 1) * sizeof *s->jobs);
        s->count--;
    }
}

/* Adds a task whose job exists; inputs already checked. */
CRES__PRIVATE cres_result cres__job_add(cres_cluster_spec *s, cres__job *j, int index,
                                       const char *address, cres_error *err) {
    int found;
    size_t at = cres__find_task(&j->pub, index, &found);
    cres_task *tasks;
    char *copy;
    if (found) {
        char q[CRES__QUOTE_SIZE];
        return cres__fail(err, CRES_ERR_CONFLICT, "job %s has task %d twice",
                          cres__quote_str(q, sizeof q, j->pub.name), index);
    }
    tasks = cres__tasks(j);
    if (!cres__grow(&s->alloc, (void **)&tasks, &j->cap, sizeof *tasks, j->pub.tasks_count + 1))
        return cres__oom(err, "spec");
    j->pub.tasks = tasks;
    copy = cres__strdup(&s->alloc, address);
    if (!copy) return cres__oom(err, "spec");
    memmove(&tasks[at + 1], &tasks[at], (j->pub.tasks_count - at) * sizeof *tasks);
    tasks[at].index = index;
    tasks[at].address = copy;
    j->pub.tasks_count++;
    return CRES_OK;
}

CRES_API cres_result cres_spec_add_task(cres_cluster_spec *s, const char *job, int index,
                                        const char *address, cres_error *err) {
    cres__job *j;
    cres_result r;
    int created;
    cres__clear(err);
    if (!s) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "spec is NULL");
    if ((r = cres__check_job_name(job, err)) != CRES_OK) return r;
    if (index < 0) {
        char q[CRES__QUOTE_SIZE];
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "job %s: task index %d is negative",
                          cres__quote_str(q, sizeof q, job), index);
    }
    if ((r = cres__check_address(job, index, address, err)) != CRES_OK) return r;
    if ((r = cres__spec_job_created(s, job, &j, &created, err)) != CRES_OK) return r;
    r = cres__job_add(s, j, index, address, err);
    if (r != CRES_OK && created) cres__spec_undo(s, j, 0, created);
    return r;
}

CRES_API cres_result cres_spec_add_job(cres_cluster_spec *s, const char *job,
                                       const char *const *addresses, size_t count,
                                       cres_error *err) {
    cres__job *j;
    const cres_job *have;
    cres_result r = CRES_OK;
    size_t i;
    int created;
    cres__clear(err);
    if (!s) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "spec is NULL");
    if ((r = cres__check_job_name(job, err)) != CRES_OK) return r;
    if (count && !addresses) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "addresses is NULL");
    if (count > (size_t)INT_MAX)
        return cres__fail(err, CRES_ERR_LIMIT, "more than %d tasks", INT_MAX);
    for (i = 0; i < count; i++)
        if ((r = cres__check_address(job, (int)i, addresses[i], err)) != CRES_OK) return r;
    have = cres_spec_job(s, job); /* conflicts first, so that undo only meets our tasks */
    if (have && count && have->tasks_count && have->tasks[0].index < (int)count) {
        char q[CRES__QUOTE_SIZE];
        return cres__fail(err, CRES_ERR_CONFLICT, "job %s has task %d twice",
                          cres__quote_str(q, sizeof q, job), have->tasks[0].index);
    }
    if ((r = cres__spec_job_created(s, job, &j, &created, err)) != CRES_OK) return r;
    for (i = 0; i < count && r == CRES_OK; i++) r = cres__job_add(s, j, (int)i, addresses[i], err);
    if (r != CRES_OK) cres__spec_undo(s, j, (int)count, created);
    return r;
}

CRES_API size_t cres_spec_jobs_count(const cres_cluster_spec *s) { return s ? s->count : 0; }

CRES_API const cres_job *cres_spec_job_at(const cres_cluster_spec *s, size_t i) {
    return s && i < s->count ? &s->jobs[i].pub : NULL;
}

CRES_API const cres_job *cres_spec_job(const cres_cluster_spec *s, const char *job) {
    int found;
    size_t at;
    if (!s || !job) return NULL;
    at = cres__find_job(s, job, &found);
    return found ? &s->jobs[at].pub : NULL;
}

CRES_API const char *cres_spec_task_address(const cres_cluster_spec *s, const char *job,
                                            int index) {
    const cres_job *j = cres_spec_job(s, job);
    int found;
    size_t at;
    if (!j) return NULL;
    at = cres__find_task(j, index, &found);
    return found ? j->tasks[at].address : NULL;
}

CRES_API size_t cres_spec_tasks_count(const cres_cluster_spec *s, const char *job) {
    const cres_job *j = cres_spec_job(s, job);
    return j ? j->tasks_count : 0;
}

CRES_API int cres_spec_equal(const cres_cluster_spec *a, const cres_cluster_spec *b) {
    size_t i, k;
    if (!a || !b) return a == b;
    if (a->count != b->count) return 0;
    for (i = 0; i < a->count; i++) {
        const cres_job *x = &a->jobs[i].pub, *y = &b->jobs[i].pub;
        if (strcmp(x->name, y->name) != 0 || x->tasks_count != y->tasks_count) return 0;
        for (k = 0; k < x->tasks_count; k++)
            if (x->tasks[k].index != y->tasks[k].index ||
                strcmp(x->tasks[k].address, y->tasks[k].address) != 0)
                return 0;
    }
    return 1;
}

/* Adds every task of `job` to s, index shifted by `offset`. */
CRES__PRIVATE cres_result cres__spec_add_tasks(cres_cluster_spec *s, const cres_job *job,
                                              int offset, cres_error *err) {
    cres__job *j;
    cres_result r;
    size_t k;
    if ((r = cres__spec_job(s, job->name, &j, err)) != CRES_OK) return r;
    for (k = 0; k < job->tasks_count; k++) {
        if (job->tasks[k].index > INT_MAX - offset)
            return cres__fail(err, CRES_ERR_LIMIT, "merge: task index past %d", INT_MAX);
        if ((r = cres__job_add(s, j, job->tasks[k].index + offset, job->tasks[k].address, err)) !=
            CRES_OK)
            return r;
    }
    return CRES_OK;
}

CRES_API cres_result cres_spec_clone(const cres_cluster_spec *spec, const cres_allocator *alloc,
                                     cres_cluster_spec **out, cres_error *err) {
    cres_cluster_spec *c;
    cres_result r;
    size_t i;
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "spec: out is NULL");
    *out = NULL;
    if (!spec) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "spec is NULL");
    if ((r = cres_spec_create(alloc, &c, err)) != CRES_OK) return r;
    if (spec->count &&
        !cres__grow(&c->alloc, (void **)&c->jobs, &c->cap, sizeof *c->jobs, spec->count)) {
        cres_spec_free(c);
        return cres__oom(err, "spec");
    }
    for (i = 0; i < spec->count; i++) {
        if ((r = cres__spec_add_tasks(c, &spec->jobs[i].pub, 0, err)) != CRES_OK) {
            cres_spec_free(c);
            return r;
        }
    }
    *out = c;
    return CRES_OK;
}

CRES__PRIVATE int cres__job_is_dense(const cres_job *j) {
    return j->tasks_count == 0 || j->tasks[j->tasks_count - 1].index == (int)j->tasks_count - 1;
}

CRES_API cres_result cres_spec_merge(cres_cluster_spec *dst, const cres_cluster_spec *src,
                                     cres_error *err) {
    cres_cluster_spec *work, swap;
    cres_result r = CRES_OK;
    size_t i;
    cres__clear(err);
    if (!dst || !src)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "merge: %s is NULL", dst ? "src" : "dst");
    /* Work on a copy so that dst is untouched when a conflict or allocation fails. */
    if ((r = cres_spec_clone(dst, &dst->alloc, &work, err)) != CRES_OK) return r;
    for (i = 0; i < src->count && r == CRES_OK; i++) {
        const cres_job *add = &src->jobs[i].pub;
        const cres_job *have = cres_spec_job(work, add->name);
        int offset = 0;
        if (have && cres__job_is_dense(have) && cres__job_is_dense(add))
            offset = (int)have->tasks_count;
        r = cres__spec_add_tasks(work, add, offset, err);
    }
    if (r != CRES_OK) {
        cres_spec_free(work);
        return r == CRES_ERR_CONFLICT ? cres__wrap(err, r, CRES_OK, "merge: ") : r;
    }
    swap = *dst;
    *dst = *work;
    *work = swap;
    cres_spec_free(work);
    return CRES_OK;
}

/* Fills spec from a TF_CONFIG "cluster" object at token obj. Messages start with `what`. */
/* Task `index` of job j from the address at token a; q is the job's quoted name. */
CRES__PRIVATE cres_result cres__spec_read_task(cres_cluster_spec *spec, const cres__json *d,
                                               cres__job *j, int index, int a, const char *what,
                                               const char *q, cres_result bad, cres_error *err) {
    char why[160], *addr;
    cres_result r;
    int ok;
    if (d->t[a].type != JSMN_STRING)
        return cres__fail(err, bad, "%s: job %s task %d must be a string address, not %s", what, q,
                          index, cres__json_quote(d, a, why, sizeof why));
    ok = cres__json_strdup(d, a, &addr);
    if (ok == 0) return cres__oom(err, what);
    if (ok < 0)
        return cres__fail(err, bad, "%s: job %s task %d: address contains a NUL character", what, q,
                          index);
    r = cres__check_address(j->pub.name, index, addr, err);
    if (r == CRES_OK) r = cres__job_add(spec, j, index, addr, err);
    cres__free(d->a, addr);
    if (r == CRES_OK) return CRES_OK;
    snprintf(why, sizeof why, "%s: ", what);
    return cres__wrap(err, r, bad, why);
}

/* A job's tasks at token v: a list of addresses (tasks 0..n-1) or an object {"index": address}. */
CRES__PRIVATE cres_result cres__spec_read_tasks(cres_cluster_spec *spec, const cres__json *d,
                                                cres__job *j, int v, const char *what,
                                                const char *q, cres_result bad, cres_error *err) {
    int i, e, index;
    char why[160];
    cres_result r = CRES_OK;
    if (d->t[v].type == JSMN_ARRAY) {
        for (i = 0, e = v + 1; r == CRES_OK && i < d->t[v].size; i++, e = cres__json_next(d, e))
            r = cres__spec_read_task(spec, d, j, i, e, what, q, bad, err);
        return r;
    }
    if (d->t[v].type != JSMN_OBJECT)
        return cres__fail(err, bad, "%s: job %s must be a list or an object of addresses, not %s",
                          what, q, cres__json_quote(d, v, why, sizeof why));
    for (i = 0, e = v + 1; r == CRES_OK && i < d->t[v].size; i++, e = cres__json_next(d, e + 1)) {
        if (!cres__json_index(d, e, 1, &index, why, sizeof why))
            return cres__fail(err, bad, "%s: job %s: task key %s", what, q, why);
        r = cres__spec_read_task(spec, d, j, index, e + 1, what, q, bad, err);
    }
    return r;
}

CRES__PRIVATE cres_result cres__spec_read_json(cres_cluster_spec *spec, const cres__json *d,
                                              int obj, const char *what, cres_result bad,
                                              cres_error *err) {
    int k = obj + 1, n;
    char q[CRES__QUOTE_SIZE], prefix[CRES__QUOTE_SIZE + 64];
    if (!cres__json_is(d, obj, JSMN_OBJECT))
        return cres__fail(err, bad, "%s must be an object of jobs, not %s", what,
                          cres__json_quote(d, obj, q, sizeof q));
    for (n = 0; n < d->t[obj].size; n++, k = cres__json_next(d, k + 1)) {
        char *name;
        cres__job *j;
        cres_result r;
        int ok = cres__json_strdup(d, k, &name);
        if (ok == 0) return cres__oom(err, what);
        if (ok < 0)
            return cres__fail(err, bad,
                              "%s: a job name contains a NUL character or a lone surrogate", what);
        cres__quote_str(q, sizeof q, name);
        snprintf(prefix, sizeof prefix, "%s: ", what);
        r = cres__check_job_name(name, err);
        if (r == CRES_OK && cres_spec_job(spec, name))
            r = cres__fail(err, bad, "job %s appears twice", q);
        if (r == CRES_OK) r = cres__spec_job(spec, name, &j, err);
        cres__free(d->a, name);
        if (r != CRES_OK) return cres__wrap(err, r, bad, prefix);
        if ((r = cres__spec_read_tasks(spec, d, j, k + 1, what, q, bad, err)) != CRES_OK) return r;
    }
    return CRES_OK;
}

CRES_API cres_result cres_spec_from_json(const char *json, size_t len, const cres_allocator *alloc,
                                         cres_cluster_spec **out, cres_error *err) {
    cres__json d;
    cres_cluster_spec *spec;
    cres_result r;
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "spec: out is NULL");
    *out = NULL;
    if (!json) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "cluster JSON is NULL");
    if ((r = cres_spec_create(alloc, &spec, err)) != CRES_OK) return r;
    r = cres__json_parse_document(&d, json, len, &spec->alloc, "cluster JSON",
                                  CRES_ERR_INVALID_JSON, err);
    if (r == CRES_OK) {
        r = cres__spec_read_json(spec, &d, 0, "cluster JSON", CRES_ERR_INVALID_JSON, err);
        cres__json_free(&d);
    }
    if (r != CRES_OK) {
        cres_spec_free(spec);
        return r;
    }
    *out = spec;
    return CRES_OK;
}

CRES__PRIVATE void cres__spec_write_json(const cres_cluster_spec *s, cres__writer *w) {
    size_t i, k;
    cres__puts(w, "{");
    for (i = 0; i < s->count; i++) {
        const cres_job *j = &s->jobs[i].pub;
        int dense = cres__job_is_dense(j);
        if (i) cres__puts(w, ", ");
        cres__put_json_string(w, j->name);
        cres__puts(w, dense ? ": [" : ": {");
        for (k = 0; k < j->tasks_count; k++) {
            if (k) cres__puts(w, ", ");
            if (!dense) {
                cres__puts(w, "\"");
                cres__put_int(w, j->tasks[k].index);
                cres__puts(w, "\": ");
            }
            cres__put_json_string(w, j->tasks[k].address);
        }
        cres__puts(w, dense ? "]" : "}");
    }
    cres__puts(w, "}");
}

CRES_API cres_result cres_spec_to_json(const cres_cluster_spec *spec, char *buf, size_t cap,
                                       size_t *out_len, cres_error *err) {
    cres__writer w;
    cres_result r;
    cres__clear(err);
    if (!spec) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "spec is NULL");
    if ((r = cres__start(&w, buf, cap, err)) != CRES_OK) return r;
    cres__spec_write_json(spec, &w);
    return cres__finish(&w, out_len, err);
}

/* ////////////////////////////////////////////////////////////////////////////////////////
   Resolvers: the common part                                                  >>resolver */

#define CRES__TYPE_OVERRIDDEN 1
#define CRES__ID_OVERRIDDEN 2

CRES__PRIVATE CRES__PRINTF(3, 4) void cres__log(const cres_resolver *r, cres_log_level level,
                                                const char *fmt, ...) {
    char msg[512];
    va_list ap;
    if (!r->config.log.fn) return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->config.log.fn(r->config.log.user, level, msg);
}

CRES_API const char *cres_resolver_getenv(const cres_resolver *r, const char *name) {
    if (!r || !name) return NULL;
    return r->config.getenv.fn ? r->config.getenv.fn(r->config.getenv.user, name) : getenv(name);
}

CRES_API const char *cres_resolver_env_at(const cres_resolver *r, size_t index) {
    char **env = CRES__ENVIRON;
    size_t i;
    if (!r) return NULL;
    if (r->config.env_list.fn) return r->config.env_list.fn(r->config.env_list.user, index);
    for (i = 0; env && env[i] && i < index; i++) {}
    return env ? env[i] : NULL;
}

CRES_API const cres_allocator *cres_resolver_allocator(const cres_resolver *r) {
    return r ? &r->config.allocator : &cres__default_allocator;
}

CRES_API cres_result cres_resolver_new(size_t size, const cres_resolver_vtable *vtable,
                                       const cres_config *config, cres_resolver **out,
                                       cres_error *err) {
    cres_resolver *r;
    cres_config cfg;
    cres_result res;
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "resolver: out is NULL");
    *out = NULL;
    if (!vtable || !vtable->resolve || !vtable->name)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "resolver: the vtable needs a name and resolve()");
    if (size < sizeof(cres_resolver))
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "resolver: size %zu is smaller than cres_resolver", size);
    if (config) cfg = *config;
    else memset(&cfg, 0, sizeof cfg);
    if ((res = cres__check_allocator(&cfg.allocator, err)) != CRES_OK) return res;
    cfg.allocator = cres__settled_allocator(&cfg.allocator);
    if (cfg.timeout_ms < 0)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "config: timeout_ms %d is out of range (0 or more)", cfg.timeout_ms);
    if (cfg.max_retries < -1 || cfg.resolve_timeout_ms < -1) {
        int retries = cfg.max_retries < -1;
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "config: %s %d is out of range (-1 or more)",
                          retries ? "max_retries" : "resolve_timeout_ms",
                          retries ? cfg.max_retries : cfg.resolve_timeout_ms);
    }
    /* What a zero means is settled here, once: calls read the resolver's copy as it is. */
    if (!cfg.timeout_ms) cfg.timeout_ms = CRES__DEFAULT_TIMEOUT_MS;
    cfg.max_retries = cfg.max_retries == 0  ? CRES__DEFAULT_RETRIES
                      : cfg.max_retries < 0 ? 0
                                            : cfg.max_retries;
    if (!cfg.resolve_timeout_ms) cfg.resolve_timeout_ms = CRES__DEFAULT_RESOLVE_TIMEOUT_MS;
    if (!cfg.max_response_bytes) cfg.max_response_bytes = CRES__DEFAULT_MAX_RESPONSE;
    r = (cres_resolver *)cres__alloc(&cfg.allocator, size);
    if (!r) return cres__oom(err, vtable->name);
    memset(r, 0, size);
    r->vtable = vtable;
    r->config = cfg;
    r->task_id = -1;
    *out = r;
    return CRES_OK;
}

CRES_API void cres_resolver_free(cres_resolver *r) {
    cres_allocator a;
    if (!r || r->owner) return; /* a union owns it and frees it */
    if (r->vtable->destroy) r->vtable->destroy(r);
    a = r->config.allocator;
    cres__free(&a, r->task_type);
    cres__free(&a, r->rpc_layer);
    cres__free(&a, r->environment);
    cres__free(&a, r);
}

/* Replaces an owned string field; NULL clears it. */
CRES__PRIVATE cres_result cres__set_string(cres_resolver *r, char **field, const char *value,
                                          cres_error *err) {
    char *copy = NULL;
    if (value && *field && strcmp(value, *field) == 0) return CRES_OK; /* no churn */
    if (value && !(copy = cres__strdup(&r->config.allocator, value)))
        return cres__oom(err, r->vtable->name);
    cres__free(&r->config.allocator, *field);
    *field = copy;
    return CRES_OK;
}

CRES__PRIVATE cres_result cres__set_task_fields(cres_resolver *r, const char *task_type,
                                               int task_id, int mark, cres_error *err) {
    cres_result res;
    if (task_id < -1)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "task id %d is negative", task_id);
    if (task_type && !(mark == 0 && (r->task_overridden & CRES__TYPE_OVERRIDDEN))) {
        if ((res = cres__set_string(r, &r->task_type, task_type, err)) != CRES_OK) return res;
        if (mark) r->task_overridden |= CRES__TYPE_OVERRIDDEN;
    }
    if (task_id >= 0 && !(mark == 0 && (r->task_overridden & CRES__ID_OVERRIDDEN))) {
        r->task_id = task_id;
        if (mark) r->task_overridden |= CRES__ID_OVERRIDDEN;
    }
    return CRES_OK;
}

CRES_API cres_result cres_set_task(cres_resolver *r, const char *task_type, int task_id,
                                   cres_error *err) {
    cres__clear(err);
    if (!r) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "resolver is NULL");
    return cres__set_task_fields(r, task_type, task_id, 1, err);
}

CRES_API cres_result cres_set_detected_task(cres_resolver *r, const char *task_type, int task_id,
                                            cres_error *err) {
    cres__clear(err);
    if (!r) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "resolver is NULL");
    return cres__set_task_fields(r, task_type, task_id, 0, err);
}

CRES_API cres_result cres_set_rpc_layer(cres_resolver *r, const char *rpc_layer, cres_error *err) {
    cres__clear(err);
    if (!r) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "resolver is NULL");
    return cres__set_string(r, &r->rpc_layer, rpc_layer && *rpc_layer ? rpc_layer : NULL, err);
}

CRES_API cres_result cres_set_environment(cres_resolver *r, const char *environment,
                                          cres_error *err) {
    cres__clear(err);
    if (!r) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "resolver is NULL");
    return cres__set_string(r, &r->environment, environment && *environment ? environment : NULL,
                            err);
}

CRES_API const char *cres_resolver_name(const cres_resolver *r) {
    return r ? r->vtable->name : NULL;
}
CRES_API const char *cres_task_type(const cres_resolver *r) { return r ? r->task_type : NULL; }
CRES_API int cres_task_id(const cres_resolver *r) { return r ? r->task_id : -1; }
CRES_API const char *cres_rpc_layer(const cres_resolver *r) { return r ? r->rpc_layer : NULL; }
CRES_API const char *cres_environment(const cres_resolver *r) {
    return r ? r->environment : NULL;
}

/* Hands a new resolver out, or frees it when its set-up failed. */
CRES__PRIVATE cres_result cres__created(cres_resolver *r, cres_result res, cres_resolver **out) {
    if (res != CRES_OK) {
        cres_resolver_free(r);
        return res;
    }
    *out = r;
    return CRES_OK;
}

/* Applies the task and rpc fields every options struct has. task_id is read only with
   task_type, so one without the other is a mistake, not a default (0 cannot be told apart). */
CRES__PRIVATE cres_result cres__apply_options(cres_resolver *r, const char *task_type, int task_id,
                                             const char *rpc_layer, cres_error *err) {
    cres_result res = CRES_OK;
    if (task_id < -1 || (task_id > 0 && !task_type))
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "%s: options.task_id %d %s",
                          r->vtable->name, task_id,
                          task_id < -1 ? "is below -1"
                                       : "is set without options.task_type (set both, or neither)");
    if (task_type) res = cres_set_task(r, task_type, task_id, err);
    if (res == CRES_OK && rpc_layer) res = cres_set_rpc_layer(r, rpc_layer, err);
    return res;
}

CRES_API cres_result cres_resolve(cres_resolver *r, cres_cluster_spec **out, cres_error *err) {
    cres_result res;
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "resolve: out is NULL");
    *out = NULL;
    if (!r) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "resolver is NULL");
    res = r->vtable->resolve(r, out, err);
    if (res != CRES_OK && *out) {
        cres_spec_free(*out); /* a backend that fails must not hand out a spec */
        *out = NULL;
    }
    if (res != CRES_OK && err && !err->message[0]) /* a backend of the program's, silent */
        cres_error_set(err, res, "%s: resolve failed without a message", r->vtable->name);
    if (res == CRES_OK && !*out)
        return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE, "%s: resolve gave no spec",
                          r->vtable->name);
    /* the own task, given or found, is one of the spec's; TensorFlow's evaluator runs outside
       it, and an empty spec is TensorFlow's local session (a local TPU), which has no tasks */
    if (res == CRES_OK && r->task_type && r->task_id >= 0 && (*out)->count &&
        !cres_spec_task_address(*out, r->task_type, r->task_id) &&
        strcmp(r->task_type, "evaluator") != 0) {
        char q[CRES__QUOTE_SIZE], has[48] = "no such job";
        if (cres_spec_job(*out, r->task_type))
            snprintf(has, sizeof has, "that job has %zu tasks",
                     cres_spec_tasks_count(*out, r->task_type));
        cres_spec_free(*out);
        *out = NULL;
        return cres__fail(err, CRES_ERR_NOT_FOUND, "%s: the %s, %s %d, is not in the cluster "
                          "(%s)", r->vtable->name, r->task_overridden ? "task given" : "own task",
                          cres__quote_str(q, sizeof q, r->task_type), r->task_id, has);
    }
    return res;
}

/* Resolves r; the spec, with the own task known (a backend may learn it in the resolve). */
CRES__PRIVATE cres_result cres__resolve_own(cres_resolver *r, const char *what,
                                            cres_cluster_spec **spec, cres_error *err) {
    cres_result res = cres_resolve(r, spec, err);
    if (res == CRES_OK && (!r->task_type || r->task_id < 0)) {
        cres_spec_free(*spec);
        *spec = NULL;
        return cres__fail(err, CRES_ERR_NOT_FOUND,
                          "%s: %s knows no own task%s%s%s; set one with cres_set_task()", what,
                          r->vtable->name, r->no_task_why ? " (" : "",
                          r->no_task_why ? r->no_task_why : "", r->no_task_why ? ")" : "");
    }
    return res;
}

/* Where the own task came from, for messages: the caller, or the variable that names it. */
CRES__PRIVATE const char *cres__task_source(const cres_resolver *r) {
    if (r->task_overridden) return "the task options";
    if (strcmp(r->vtable->name, "tfconfig") == 0) return "TF_CONFIG";
    if (strcmp(r->vtable->name, "vertex") == 0) return "CLUSTER_SPEC";
    if (strcmp(r->vtable->name, "tpu") == 0) return "TPU_WORKER_ID (0 when unset)";
    return "the backend";
}

/* cres_launch of a backend without a launch entry: resolves, then the own task's place in the
   spec. */
CRES__PRIVATE cres_result cres__launch_from_spec(cres_resolver *r, cres_launch_info *out,
                                                 cres_error *err) {
    cres_cluster_spec *spec = NULL;
    cres_result res = cres__resolve_own(r, "launch", &spec, err);
    if (res != CRES_OK) return res;
    res = cres_spec_launch_info(spec, r->task_type, r->task_id, out, err);
    cres_spec_free(spec);
    if (res == CRES_ERR_NOT_FOUND) {
        char q[CRES__QUOTE_SIZE];
        cres_error_set(err, res, "%s: this process's task %s %d, from %s, %s", r->vtable->name,
                       cres__quote_str(q, sizeof q, r->task_type), r->task_id,
                       cres__task_source(r),
                       strcmp(r->task_type, "evaluator") == 0
                           ? "has no rank: TensorFlow runs its evaluator beside the cluster's "
                             "ranks, not among them"
                           : "is not in the cluster, so it has no rank");
    }
    return res;
}

/* "<rpc>://<address>", or the address alone when rpc is NULL or empty or address is "". */
CRES__PRIVATE cres_result cres__write_master(const char *address, const char *rpc, char *buf,
                                            size_t cap, size_t *out_len, cres_error *err) {
    cres__writer w;
    cres_result res;
    if ((res = cres__start(&w, buf, cap, err)) != CRES_OK) return res;
    if (rpc && *rpc && *address) {
        cres__puts(&w, rpc);
        cres__puts(&w, "://");
    }
    cres__puts(&w, address);
    return cres__finish(&w, out_len, err);
}

/* 2 for an IPv6 literal (hex digits, ':' and '.' only, two ':' at least), 1 for another host
   an address reader can split back from its port, 0 for one it cannot: one with ':' that is
   not IPv6 ("10.0.0.1:80"), brackets, blanks or control characters. */
CRES__PRIVATE int cres__host_kind(const char *host) {
    size_t n = strlen(host);
    const char *colon = strchr(host, ':');
    if (!n || n > CRES_MAX_NAME_LENGTH || host[strcspn(host, "[]")] || cres__bad_text(host, 1))
        return 0;
    if (!colon) return 1;
    return strspn(host, "0123456789abcdefABCDEF:.") == n && strchr(colon + 1, ':') ? 2 : 0;
}

/* A host the launcher names, as an address: "name:port", or "[v6]:port" for an IPv6 literal.
   0 for a host cres__host_kind() refuses. */
CRES__PRIVATE int cres__put_host_port(cres__writer *w, const char *host, int port) {
    int kind = cres__host_kind(host), v6 = kind == 2;
    if (!kind) return 0;
    if (v6) cres__puts(w, "[");
    cres__puts(w, host);
    cres__puts(w, v6 ? "]:" : ":");
    cres__put_int(w, port);
    return 1;
}

/* An environment variable that, when set, must hold an integer in [lo, hi] (unset: *out is
   left as it is). Six arguments: a seventh would go on the stack at every call. */
CRES__PRIVATE cres_result cres__env_int(const cres_resolver *r, const char *name, long long lo,
                                        long long hi, int *out, cres_error *err) {
    const char *v = cres_resolver_getenv(r, name);
    long long n;
    char q[CRES__QUOTE_SIZE];
    if (!v) return CRES_OK;
    if (cres__parse_decimal(v, strlen(v), &n) != 1 || n < lo || n > hi)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: %s=%s is not an integer from %lld to %lld", r->vtable->name, name,
                          cres__quote_str(q, sizeof q, v), lo, hi);
    *out = (int)n;
    return CRES_OK;
}

/* cres__env_int of a variable that must be set. */
CRES__PRIVATE cres_result cres__env_need(const cres_resolver *r, const char *name, long long lo,
                                         long long hi, int *out, cres_error *err) {
    if (!cres_resolver_getenv(r, name))
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s is not set", r->vtable->name, name);
    return cres__env_int(r, name, lo, hi, out, err);
}

/* A second source of a count: when `name` is set it must be `want`, which `source` gives. */
CRES__PRIVATE cres_result cres__env_agrees(const cres_resolver *r, const char *name, int want,
                                           const char *source, cres_error *err) {
    int n = want;
    cres_result res = cres__env_int(r, name, 0, INT_MAX, &n, err);
    if (res != CRES_OK || n == want) return res;
    return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s=%d but %s gives %d", r->vtable->name,
                      name, n, source, want);
}

/* A variable set to something other than blanks. */
CRES__PRIVATE int cres__env_set(const cres_resolver *probe, const char *name) {
    const char *v = cres_resolver_getenv(probe, name);
    return v && !cres__is_blank(v);
}

#if !defined(CLUSTER_RESOLVER_NO_AUTO) || !defined(CLUSTER_RESOLVER_NO_SLURM) || \
    !defined(CLUSTER_RESOLVER_NO_MPI)
/* A scheduler's job, which its job script and every process in it see: Slurm's two names
   first (the Slurm backend reads them here: a literal would be a second copy), then PBS's,
   LSF's, Grid Engine's and Flux's. A name list (see "Footprint" in >>impl). */
CRES__BYTE_ALIGNED static const char cres__job_vars[] =
    "SLURM_JOB_ID\0SLURM_JOBID\0PBS_JOBID\0PBS_NODEFILE\0LSB_JOBID\0PE_HOSTFILE\0FLUX_JOB_ID\0"
    "FLUX_ENCLOSING_ID\0";
#  define CRES__SLURM_JOB_ID cres__job_vars
#  define CRES__SLURM_JOBID (cres__job_vars + sizeof "SLURM_JOB_ID")
#endif

/* A pbsdsh task: PBS_VNODENUM, its line of PBS_NODEFILE. Torque sets PBS_VNODENUM=0 in the
   job script too, whose PBS_TASKNUM is 1: the mother superior numbers the job's tasks from 1,
   the script first (torque src/resmom/start_exec.c and mom_comm.c at 34ff845). */
CRES__PRIVATE int cres__pbsdsh_task(const cres_resolver *r) {
    const char *vnode = cres_resolver_getenv(r, "PBS_VNODENUM");
    const char *task = cres_resolver_getenv(r, "PBS_TASKNUM");
    return cres__env_set(r, "PBS_VNODENUM") &&
           !(strcmp(vnode, "0") == 0 && task && strcmp(task, "1") == 0);
}

/* The first variable of a name list ("A\0B\0", see "Footprint" in >>impl) that is set, or
   NULL. */
CRES__PRIVATE const char *cres__env_any(const cres_resolver *probe, const char *names) {
    for (; *names; names = cres__next_name(names))
        if (cres__env_set(probe, names)) return names;
    return NULL;
}

/* Every variable of names[] must be set and not empty: else an error naming those that
   are (with their values) and the first that is not ("WORLD_SIZE=4 and RANK=1 are set,
   MASTER_ADDR is not"). */
CRES__PRIVATE cres_result cres__env_require(const cres_resolver *r, const char *const *names,
                                            cres_error *err) {
    char set[160], q[CRES__QUOTE_SIZE];
    const char *missing = NULL;
    int empty = 0; /* missing is set, but empty */
    size_t n = 0, count = 0, i;
    set[0] = '\0';
    for (i = 0; names[i]; i++) {
        const char *v = cres_resolver_getenv(r, names[i]);
        if (!v || !*v) {
            if (!missing) missing = names[i], empty = v != NULL;
            continue;
        }
        if (n < sizeof set)
            n += (size_t)snprintf(set + n, sizeof set - n, "%s%s=%s", count ? " and " : "",
                                  names[i], cres__quote_str(q, sizeof q, v));
        count++;
    }
    if (!missing) return CRES_OK;
    if (!count)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          empty ? "%s: %s is empty" : "%s: %s is not set", r->vtable->name,
                          missing);
    return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s %s set, %s %s", r->vtable->name, set,
                      count > 1 ? "are" : "is", missing, empty ? "is empty" : "is not");
}

/* The master of the given task, or of the own task as known after the resolve that made spec
   (a backend may find it there). With no task: `no_task` ("" or a master string), or
   CRES_ERR_NOT_FOUND when no_task is NULL. cres__master_of_task resolves first. */
CRES__PRIVATE cres_result cres__master_in_spec(cres_resolver *r, const cres_cluster_spec *spec,
                                               const char *task_type, int task_id,
                                               const char *rpc_layer, const char *no_task,
                                               char *buf, size_t cap, size_t *out_len,
                                               cres_error *err) {
    const char *type = task_type ? task_type : r->task_type, *address;
    const char *rpc = rpc_layer ? rpc_layer : r->rpc_layer;
    int id = task_id >= 0 ? task_id : r->task_id;
    char q[CRES__QUOTE_SIZE];
    if (!type || id < 0)
        return no_task ? cres__write_master(no_task, rpc, buf, cap, out_len, err)
                       : cres__fail(err, CRES_ERR_NOT_FOUND,
                                    "%s: no task to give the master of: no task %s is known; "
                                    "pass task_type and task_id",
                                    r->vtable->name, type ? "index" : "type");
    if ((address = cres_spec_task_address(spec, type, id)) != NULL)
        return cres__write_master(address, rpc, buf, cap, out_len, err);
    cres__quote_str(q, sizeof q, type);
    return cres_spec_job(spec, type)
               ? cres__fail(err, CRES_ERR_NOT_FOUND, "%s: job %s has no task %d", r->vtable->name,
                            q, id)
               : cres__fail(err, CRES_ERR_NOT_FOUND, "%s: no job %s in the cluster",
                            r->vtable->name, q);
}

/* TF's rule: a spec with no jobs, or one job holding only task 0, has the local master "". */
CRES__PRIVATE int cres__spec_is_local(const cres_cluster_spec *s) {
    return s->count == 0 ||
           (s->count == 1 && s->jobs[0].pub.tasks_count == 1 && s->jobs[0].pub.tasks[0].index == 0);
}

CRES__PRIVATE cres_result cres__master_of_task(cres_resolver *r, const char *task_type, int task_id,
                                              const char *rpc_layer, const char *no_task,
                                              char *buf, size_t cap, size_t *out_len,
                                              cres_error *err) {
    cres_cluster_spec *spec;
    cres_result res = cres_resolve(r, &spec, err);
    if (res != CRES_OK) return res;
    res = cres__master_in_spec(r, spec, task_type, task_id, rpc_layer, no_task, buf, cap, out_len,
                               err);
    cres_spec_free(spec);
    return res;
}

CRES_API cres_result cres_master_of(cres_resolver *r, const char *task_type, int task_id,
                                    const char *rpc_layer, char *buf, size_t cap, size_t *out_len,
                                    cres_error *err) {
    cres__clear(err);
    if (!r) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "resolver is NULL");
    if (task_id < -1)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "task id %d is negative", task_id);
    if (r->vtable->master)
        return r->vtable->master(r, task_type, task_id, rpc_layer, buf, cap, out_len, err);
    return cres__master_of_task(r, task_type, task_id, rpc_layer, "", buf, cap, out_len, err);
}

CRES_API cres_result cres_master(cres_resolver *r, char *buf, size_t cap, size_t *out_len,
                                 cres_error *err) {
    return cres_master_of(r, NULL, CRES_OWN_TASK, NULL, buf, cap, out_len, err);
}

CRES_API cres_result cres_visible_devices_of(cres_resolver *r, const char *task_type, int task_id,
                                             char *buf, size_t cap, size_t *out_len,
                                             cres_error *err) {
    cres__writer w;
    cres_result res;
    cres__clear(err);
    if (!r) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "resolver is NULL");
    if (task_id < -1)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "task id %d is negative", task_id);
    if (r->vtable->visible_devices)
        return r->vtable->visible_devices(r, task_type, task_id, buf, cap, out_len, err);
    if ((res = cres__start(&w, buf, cap, err)) != CRES_OK) return res;
    return cres__finish(&w, out_len, err);
}

CRES_API cres_result cres_visible_devices(cres_resolver *r, char *buf, size_t cap, size_t *out_len,
                                          cres_error *err) {
    return cres_visible_devices_of(r, NULL, CRES_OWN_TASK, buf, cap, out_len, err);
}

CRES_API cres_result cres_num_accelerators_of(cres_resolver *r, const char *task_type, int task_id,
                                              cres_accelerators *out, cres_error *err) {
    cres__clear(err);
    if (!r || !out)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "num_accelerators: %s is NULL",
                          r ? "out" : "resolver");
    if (task_id < -1)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "task id %d is negative", task_id);
    memset(out, 0, sizeof *out);
    if (!r->vtable->num_accelerators) return CRES_OK;
    return r->vtable->num_accelerators(r, task_type, task_id, out, err);
}

CRES_API cres_result cres_num_accelerators(cres_resolver *r, cres_accelerators *out,
                                           cres_error *err) {
    return cres_num_accelerators_of(r, NULL, CRES_OWN_TASK, out, err);
}

/* ////////////////////////////////////////////////////////////////////////////////////////
   HTTP above the transport: retries, backoff, limits                                >>http */

#ifdef CRES__HTTP
#ifndef CRES_MAX_RETRY_AFTER_MS
#  define CRES_MAX_RETRY_AFTER_MS 32000 /* a server's Retry-After is honoured up to this (the
                                           longest API priority and fairness asks for) */
#endif
#define CRES__BACKOFF_FIRST_MS 250   /* backoff without Retry-After: 250 ms doubling, */
#define CRES__BACKOFF_MAX_MS 10000   /* ... up to 10 s, each wait drawn from [0, that] */
#define CRES__RETRY_RESERVE_MS 1000  /* what a retry's draw leaves the request, at most */

#if defined(_WIN32)
#  ifdef CLUSTER_RESOLVER_USE_CURL
#    include <winsock2.h> /* curl.h includes it, and it must come before windows.h */
#  endif
#  include <windows.h>
CRES__PRIVATE void cres__system_sleep(void *user, int ms) {
    (void)user;
    Sleep((DWORD)ms);
}
CRES__PRIVATE long long cres__now_ms(void) { return (long long)GetTickCount64(); }
#else
#  include <sys/select.h>
#  include <sys/time.h>
CRES__PRIVATE void cres__system_sleep(void *user, int ms) {
    struct timeval tv;
    (void)user;
    tv.tv_sec = ms / 1000;
    tv.tv_usec = (ms % 1000) * 1000;
    select(0, NULL, NULL, NULL, &tv);
}
/* Deadlines want a clock that never steps: the monotonic one where <time.h> offers it (POSIX
   feature macros, the default of gnu dialects), else the wall clock. */
#  include <time.h>
CRES__PRIVATE long long cres__now_ms(void) {
#  if defined(CLOCK_MONOTONIC)
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
#  endif
    {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
    }
}
#endif

CRES__PRIVATE void cres__sleep(const cres_resolver *r, int ms) {
    if (r->config.sleep.fn) r->config.sleep.fn(r->config.sleep.user, ms);
    else cres__system_sleep(NULL, ms);
}

#ifdef CLUSTER_RESOLVER_USE_CURL
static cres_transport cres__curl_transport_value(void);
#endif

/* The requests of one resolve: one transport session, counted. */
typedef struct cres__http {
    cres_resolver *r;
    cres_transport transport;
    void *session;
    int requests;
    int metadata_answered; /* the metadata server answered during this resolve */
    long long deadline;    /* cres__now_ms() past which no request starts; 0 = none */
    unsigned long long jitter; /* the state of this resolve's backoff jitter (splitmix64) */
    const cres_http_tls *tls; /* what every request carries (a kubeconfig's), or NULL */
} cres__http;

/* A seed that differs between processes started in the same millisecond on many machines:
   the clock, this stack's address (randomized per process) and the resolver's. */
CRES__PRIVATE unsigned long long cres__jitter_seed(const void *stack, const void *heap) {
    unsigned long long s = (unsigned long long)cres__now_ms() * 0x9E3779B97F4A7C15ull;
    s ^= (unsigned long long)(size_t)stack * 0xBF58476D1CE4E5B9ull;
    s ^= (unsigned long long)(size_t)heap * 0x94D049BB133111EBull;
#if !defined(_WIN32) && defined(CLOCK_MONOTONIC)
    {
        struct timespec ts;
        if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) s ^= (unsigned long long)ts.tv_nsec << 20;
    }
#endif
    return s;
}

/* A number in [0, n], from the resolve's splitmix64 state. */
CRES__PRIVATE int cres__jitter(cres__http *h, int n) {
    unsigned long long z = (h->jitter += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return n > 0 ? (int)(z % ((unsigned long long)n + 1)) : 0;
}

CRES__PRIVATE cres_result cres__http_begin(cres__http *h, cres_resolver *r, cres_error *err) {
    memset(h, 0, sizeof *h);
    h->r = r;
    if (!r->jitter) r->jitter = cres__jitter_seed(&h, r) | 1u;
    h->jitter = r->jitter;
    if (r->config.resolve_timeout_ms > 0)
        h->deadline = cres__now_ms() + r->config.resolve_timeout_ms;
    h->transport = r->config.transport;
    if (h->transport.perform) return CRES_OK;
#ifdef CLUSTER_RESOLVER_USE_CURL
    (void)err;
    h->transport = cres__curl_transport_value();
    return CRES_OK;
#else
    return cres__fail(err, CRES_ERR_NO_TRANSPORT, "%s: %s", r->vtable->name,
                      cres_result_string(CRES_ERR_NO_TRANSPORT));
#endif
}

CRES__PRIVATE void cres__http_end(cres__http *h) {
    h->r->jitter = h->jitter; /* the next resolve goes on from here */
    if (h->session && h->transport.close_session)
        h->transport.close_session(h->transport.user, h->session);
    h->session = NULL;
}

CRES__PRIVATE void cres__response_free(const cres_resolver *r, cres_http_response *resp) {
    cres__free(&r->config.allocator, resp->body);
    resp->body = NULL;
    resp->body_len = 0;
}

/* Past the resolve's bound (config.resolve_timeout_ms). */
CRES__PRIVATE int cres__http_out_of_time(const cres__http *h) {
    return h->deadline && cres__now_ms() >= h->deadline;
}

/* The first field of tls that the transport does not say it honours, or NULL. */
CRES__PRIVATE const char *cres__tls_unhonoured(const cres_http_tls *tls, unsigned features) {
    if (!tls) return NULL;
    if (tls->ca_pem && !(features & CRES_TRANSPORT_CA_PEM)) return "ca_pem";
    if (tls->client_cert_pem && !(features & CRES_TRANSPORT_CLIENT_CERT)) return "client_cert_pem";
    if (tls->server_name && !(features & CRES_TRANSPORT_SERVER_NAME)) return "server_name";
    if (tls->proxy && !(features & CRES_TRANSPORT_PROXY)) return "proxy";
    if (tls->insecure_skip_verify && !(features & CRES_TRANSPORT_INSECURE))
        return "insecure_skip_verify";
    return NULL;
}

CRES__PRIVATE int cres__retryable(cres_result res, int status) {
    return res == CRES_ERR_TRANSPORT || (res == CRES_OK && (status == 429 || status >= 500));
}

/* One perform() of at most request_ms, less when the resolve has less left; its answer held
   to the cap. */
CRES__PRIVATE cres_result cres__http_attempt(cres__http *h, cres_http_request *req, int request_ms,
                                            cres_http_response *resp, cres_error *err) {
    const cres_config *c = &h->r->config;
    int resolve_ms = c->resolve_timeout_ms;
    long long left = h->deadline ? h->deadline - cres__now_ms() : -1;
    const char *field;
    cres_result res;
    memset(resp, 0, sizeof *resp);
    if (h->deadline && left <= 0) /* a slow drip of answers, each in time, adds up here */
        return cres__fail(err, CRES_ERR_TIMEOUT,
                          "the resolve took longer than config.resolve_timeout_ms (%d ms)",
                          resolve_ms);
    if ((field = cres__tls_unhonoured(req->tls, h->transport.features)) != NULL)
        return cres__fail(err, CRES_ERR_UNSUPPORTED,
                          "the transport does not honour tls->%s (its features lack the bit)",
                          field);
    req->timeout_ms = left >= 0 && left < request_ms ? (int)left : request_ms;
    cres__log(h->r, CRES_LOG_DEBUG, "%s: %s %s", h->r->vtable->name, req->method, req->url);
    res = h->transport.perform(h->transport.user, req, resp, &c->allocator, err);
    h->requests++;
    if (res != CRES_OK) {
        resp->body = NULL; /* a failed perform owns nothing */
        /* cut short by the resolve's bound, not the request's: a timeout of the shortened
           request (a transport's clock may fire a moment before ours), or any failure past it */
        if (left >= 0 && left < request_ms &&
            (res == CRES_ERR_TIMEOUT || (res == CRES_ERR_TRANSPORT && cres__http_out_of_time(h)))) {
            char why[96];
            snprintf(
                why, sizeof why,
                "the resolve took longer than config.resolve_timeout_ms (%d ms): ", resolve_ms);
            return cres__wrap(err, res, CRES_ERR_TIMEOUT, why);
        }
        return res;
    }
    if (resp->body_len > req->max_response_bytes) {
        cres__response_free(h->r, resp);
        return cres__fail(err, CRES_ERR_LIMIT, "response larger than the limit of %zu bytes",
                          req->max_response_bytes);
    }
    if (!resp->body &&
        !(resp->body = cres__strdup(&c->allocator, ""))) /* a transport may send no body */
        return cres__oom(err, h->r->vtable->name);
    return CRES_OK;
}

/* The wait before retry `attempt` (0-based). Every wait is drawn at random, so that the pods of
   a job refused together do not come back together: after a Retry-After (honoured up to
   CRES_MAX_RETRY_AFTER_MS), that plus up to as much again; after a 429 without one, from
   [0, b] ("full jitter"); after a connection error or a 5xx, from [b, 1.5 b], where b is 250 ms
   doubling up to 10 s: never shorter than the schedule, so an outage it outlasts is still
   outlasted. With a bound, the draw shrinks to leave the request an eighth of the bound (1 s
   at most); -1 when the floor does not fit in what is left, or (`beyond`: a 429 past
   max_retries) when it leaves less than that eighth. */
CRES__PRIVATE int cres__retry_pause(cres__http *h, int attempt, int retry_after_s, int busy,
                                    int beyond) {
    long long floor_ms = 0, spread, left, reserve = h->r->config.resolve_timeout_ms / 8;
    if (retry_after_s > 0) { /* seconds, capped before they can overflow */
        floor_ms = retry_after_s > CRES_MAX_RETRY_AFTER_MS / 1000 ? CRES_MAX_RETRY_AFTER_MS
                                                                  : retry_after_s * 1000LL;
        spread = floor_ms + floor_ms > CRES_MAX_RETRY_AFTER_MS ? CRES_MAX_RETRY_AFTER_MS - floor_ms
                                                               : floor_ms;
    } else {
        spread = (long long)CRES__BACKOFF_FIRST_MS << (attempt < 8 ? attempt : 8);
        if (spread > CRES__BACKOFF_MAX_MS) spread = CRES__BACKOFF_MAX_MS;
        if (!busy) floor_ms = spread, spread /= 2;
    }
    if (h->deadline) {
        if (reserve > CRES__RETRY_RESERVE_MS) reserve = CRES__RETRY_RESERVE_MS;
        left = h->deadline - cres__now_ms() - floor_ms;
        if (left <= 0 || (beyond && left < reserve)) return -1;
        if (spread > left - reserve) spread = left - reserve > 0 ? left - reserve : 0;
    }
    return (int)(floor_ms + cres__jitter(h, (int)spread));
}

/* One request of at most timeout_ms an attempt, retried up to `retries` times on connection
   errors and 5xx, and on 429 for as long as the resolve's bound leaves time (`retries` times
   without a bound), each after cres__retry_pause. Any HTTP status comes back as CRES_OK: the
   caller judges it with the body at hand. Messages start with the backend, the method and
   the URL. */
CRES__PRIVATE cres_result cres__http_call(cres__http *h, const char *method, const char *url,
                                          const cres_http_header *headers, size_t headers_count,
                                          const char *body, const char *ca_file, int timeout_ms,
                                          int retries, cres_http_response *resp, cres_error *err) {
    const cres_config *c = &h->r->config;
    int attempt;
    cres_http_request req;
    cres_result res;
    char prefix[256];
    memset(&req, 0, sizeof req);
    req.method = method;
    req.url = url;
    req.headers = headers;
    req.headers_count = headers_count;
    req.body = body;
    req.body_len = body ? strlen(body) : 0;
    req.ca_file = ca_file;
    req.max_response_bytes = c->max_response_bytes;
    req.session = &h->session;
    req.tls = h->tls;
    for (attempt = 0;; attempt++) {
        int pause, busy;
        res = cres__http_attempt(h, &req, timeout_ms, resp, err);
        busy = res == CRES_OK && resp->status == 429 && h->deadline && retries > 0;
        if (!cres__retryable(res, resp->status) || (attempt >= retries && !busy)) break;
        if ((pause = cres__retry_pause(h, attempt, resp->retry_after_s,
                                       res == CRES_OK && resp->status == 429, attempt >= retries)) <
            0)
            break;
        cres__log(h->r, CRES_LOG_WARN, "%s: %s %s: %s; retrying in %d ms (retry %d%s)",
                  h->r->vtable->name, method, url,
                  res == CRES_OK ? (busy ? "429 Too Many Requests" : "server busy or failing")
                                 : (err ? err->message : "no answer"),
                  pause, attempt + 1, busy ? ", until the resolve's bound" : "");
        if (res == CRES_OK) cres__response_free(h->r, resp);
        cres__sleep(h->r, pause);
    }
    if (res == CRES_OK) return CRES_OK;
    snprintf(prefix, sizeof prefix, "%s: %s %.160s: ", h->r->vtable->name, method, url);
    return cres__wrap(err, res, CRES_OK, prefix);
}

/* A request with the config's timeout and retries. */
CRES__PRIVATE cres_result cres__http_request(cres__http *h, const char *method, const char *url,
                                            const cres_http_header *headers, size_t headers_count,
                                            const char *body, const char *ca_file,
                                            cres_http_response *resp, cres_error *err) {
    const cres_config *c = &h->r->config;
    return cres__http_call(h, method, url, headers, headers_count, body, ca_file, c->timeout_ms,
                           c->max_retries, resp, err);
}

/* Appends s to w with every byte outside RFC 3986's unreserved set percent-encoded. */
CRES__PRIVATE void cres__put_url_encoded(cres__writer *w, const char *s) {
    CRES__BYTE_ALIGNED static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr("-._~", c)) {
            cres__put(w, s, 1);
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            cres__put(w, e, 3);
        }
    }
}

/* The "message" of an API's error body, as ": <message>" cut after `keep` bytes; "" when
   there is none. Kubernetes puts it at the top (outer NULL), Google under "error". */
CRES__PRIVATE void cres__error_message(const cres_resolver *r, const cres_http_response *resp,
                                       const char *outer, int keep, char *out, size_t cap) {
    static const char *const inner[] = {"message"};
    cres__json d;
    cres_error ignored;
    int obj = 0, m;
    char *text;
    out[0] = '\0';
    if (cres__json_parse(&d, resp->body, resp->body_len, &r->config.allocator, "",
                         CRES_ERR_UNEXPECTED_RESPONSE, &ignored) != CRES_OK)
        return;
    if (outer) cres__json_pick(&d, 0, &outer, &obj, 1);
    cres__json_pick(&d, obj, inner, &m, 1);
    if (m >= 0 && d.t[m].type == JSMN_STRING && cres__json_strdup(&d, m, &text) == 1) {
        snprintf(out, cap, ": %.*s%s", keep, text, strlen(text) > (size_t)keep ? "..." : "");
        cres__free(d.a, text);
    }
    cres__json_free(&d);
}

/* ---- base64 and RFC 3339, for certificate data and credential expiry ------------------ */

#include <time.h> /* time(): credentials expire by the wall clock */

CRES__BYTE_ALIGNED static const char cres__b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Decodes standard base64 (padding required, CR and LF skipped, as Go's StdEncoding) into a
   new NUL-terminated string. 1 = ok, 0 = out of memory, -1 = not base64 or holds a NUL. */
CRES__PRIVATE int cres__base64_decode(const cres_allocator *a, const char *s, size_t n,
                                      char **out) {
    size_t i, o = 0, quad = 0, pad = 0;
    unsigned long acc = 0;
    char *p = (char *)cres__alloc(a, n / 4 * 3 + 4);
    *out = NULL;
    if (!p) return 0;
    for (i = 0; i < n; i++) {
        const char *at = s[i] ? strchr(cres__b64, s[i]) : NULL;
        if (s[i] == '\r' || s[i] == '\n') continue;
        if (s[i] == '=' && quad >= 2)
            pad++;
        else if (!at || pad)
            break;
        acc = (acc << 6) | (unsigned long)(at ? at - cres__b64 : 0);
        if (++quad < 4) continue;
        p[o++] = (char)(acc >> 16);
        if (pad < 2) p[o++] = (char)(acc >> 8);
        if (pad < 1) p[o++] = (char)acc;
        quad = 0;
        acc = 0;
    }
    if (i < n || quad || memchr(p, '\0', o)) {
        cres__free(a, p);
        return -1;
    }
    p[o] = '\0';
    *out = p;
    return 1;
}

/* Standard base64 with padding, or (url) base64url without it, as JWTs want. */
CRES__PRIVATE void cres__put_b64(cres__writer *w, const char *s, size_t n, int url) {
    size_t i, k;
    for (i = 0; i < n; i += 3) {
        unsigned long v = (unsigned long)(unsigned char)s[i] << 16;
        char q[4];
        if (i + 1 < n) v |= (unsigned long)(unsigned char)s[i + 1] << 8;
        if (i + 2 < n) v |= (unsigned char)s[i + 2];
        q[0] = cres__b64[v >> 18];
        q[1] = cres__b64[(v >> 12) & 63];
        q[2] = i + 1 < n ? cres__b64[(v >> 6) & 63] : '=';
        q[3] = i + 2 < n ? cres__b64[v & 63] : '=';
        for (k = 0; url && k < 4; k++) q[k] = q[k] == '+' ? '-' : q[k] == '/' ? '_' : q[k];
        cres__put(w, q, url ? (i + 2 < n ? 4 : i + 1 < n ? 3 : 2) : 4);
    }
}

CRES__PRIVATE void cres__put_base64(cres__writer *w, const char *s, size_t n) {
    cres__put_b64(w, s, n, 0);
}

/* Days from 1970-01-01 to the given civil date (proleptic Gregorian). */
CRES__PRIVATE long long cres__days_from_civil(long long y, int m, int d) {
    long long era, yoe, doy;
    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* An RFC 3339 time ("2026-11-26T10:00:00Z", fractions and offsets allowed) as Unix seconds;
   0 when it is not one. The offset ("Z" or "+hh:mm") is required, as Go's time.RFC3339
   (what kubectl and Google's servers read and write) requires it. */
CRES__PRIVATE int cres__parse_rfc3339(const char *s, long long *out) {
    int v[6], i, sign = 0, oh = 0, om = 0;
    static const int at[6] = {0, 5, 8, 11, 14, 17}, len[6] = {4, 2, 2, 2, 2, 2};
    static const char month_days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *p;
    size_t n = strlen(s);
    if (n < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' ||
        s[16] != ':')
        return 0;
    for (i = 0; i < 6; i++) {
        long long x;
        if (cres__parse_decimal(s + at[i], (size_t)len[i], &x) != 1 || x < 0) return 0;
        v[i] = (int)x;
    }
    if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > month_days[v[1] - 1] || v[3] > 23 ||
        v[4] > 59 || v[5] > 60 ||
        (v[1] == 2 && v[2] == 29 && (v[0] % 4 || (v[0] % 100 == 0 && v[0] % 400))))
        return 0;
    p = s + 19;
    if (*p == '.') {
        if (p[1] < '0' || p[1] > '9') return 0; /* a fraction has a digit */
        for (p++; *p >= '0' && *p <= '9'; p++) {
        }
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
        long long h, m;
        if (cres__parse_decimal(p + 1, 2, &h) != 1 || cres__parse_decimal(p + 4, 2, &m) != 1 ||
            h < 0 || h > 23 || m < 0 || m > 59)
            return 0;
        sign = *p == '-' ? -1 : 1, oh = (int)h, om = (int)m;
        p += 6;
    } else {
        return 0; /* no offset: a local time, which names no instant */
    }
    if (*p) return 0;
    *out = ((cres__days_from_civil(v[0], v[1], v[2]) * 24 + v[3]) * 60 + v[4]) * 60 + v[5] -
           sign * (oh * 3600 + om * 60);
    return 1;
}

/* Names and values several backends send, as arrays rather than literals: gcc would put a
   shared literal in one backend's string section, which every program using it then keeps
   whole (see "Footprint" in >>impl). */
CRES__BYTE_ALIGNED static const char cres__accept[] = "Accept",
                                     cres__authorization[] = "Authorization",
                                     cres__content_type[] = "Content-Type",
                                     cres__json_media[] = "application/json", cres__post[] = "POST";

/* "Bearer <token>" in a new string, or NULL when out of memory. */
CRES__PRIVATE char *cres__bearer_value(const cres_allocator *a, const char *token) {
    size_t n = strlen(token) + 8;
    char *s = (char *)cres__alloc(a, n);
    if (s) snprintf(s, n, "Bearer %s", token);
    return s;
}

/* What an error message adds to a 3xx status: we never follow one. */
CRES__PRIVATE const char *cres__redirect_note(int status) {
    return status >= 300 && status < 400
               ? " (a redirect: not followed, so a token never reaches another host)"
               : "";
}
#endif /* CRES__HTTP */

/* ////////////////////////////////////////////////////////////////////////////////////////
   The bundled libcurl transport                                                     >>curl */

#ifdef CLUSTER_RESOLVER_USE_CURL
#include <curl/curl.h>

typedef struct cres__curl_sink {
    CURL *curl;
    const cres_allocator *a;
    char *data;
    size_t len, cap, max;
    int too_big, oom;
    int retry_after_s;
    int reached;          /* a connection to the server carried this request */
} cres__curl_sink;

static size_t cres__curl_write(char *ptr, size_t size, size_t nmemb, void *user) {
    cres__curl_sink *s = (cres__curl_sink *)user;
    size_t n = size * nmemb;
    curl_off_t announced = -1;
    if (n > s->max - s->len) {
        s->too_big = 1;
        return 0; /* aborts the transfer */
    }
    if (!s->cap &&
        curl_easy_getinfo(s->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced) == CURLE_OK &&
        announced > 0 && (curl_off_t)s->max >= announced) { /* one allocation of the right size */
        if (!(s->data = (char *)cres__alloc(s->a, (size_t)announced + 1))) {
            s->oom = 1;
            return 0;
        }
        s->cap = (size_t)announced + 1;
    }
    if (!cres__grow(s->a, (void **)&s->data, &s->cap, 1, s->len + n + 1)) {
        s->oom = 1;
        return 0;
    }
    memcpy(s->data + s->len, ptr, n);
    s->len += n;
    return n;
}

static size_t cres__curl_header(char *line, size_t size, size_t nmemb, void *user) {
    cres__curl_sink *s = (cres__curl_sink *)user;
    size_t n = size * nmemb;
    CRES__BYTE_ALIGNED static const char name[] = "retry-after:";
    size_t k = sizeof name - 1, i;
    long long secs;
    if (n > k) {
        for (i = 0; i < k; i++)
            if ((line[i] | 0x20) != name[i]) return n;
        while (k < n && (line[k] == ' ' || line[k] == '\t')) k++;
        i = k;
        while (i < n && line[i] >= '0' && line[i] <= '9') i++;
        if (cres__parse_decimal(line + k, i - k, &secs) == 1 && secs >= 0)
            s->retry_after_s = secs > 3600 ? 3600 : (int)secs; /* HTTP dates count as absent */
    }
    return n;
}

static cres_result cres__curl_result(CURLcode rc, const cres__curl_sink *sink, const char *detail,
                                     const cres_http_request *req, cres_error *err) {
    const char *text = detail[0] ? detail : curl_easy_strerror(rc);
    if (sink->oom || rc == CURLE_OUT_OF_MEMORY)
        return cres__fail(err, CRES_ERR_OUT_OF_MEMORY, "out of memory");
    if (sink->too_big || rc == CURLE_FILESIZE_EXCEEDED)
        return cres__fail(err, CRES_ERR_LIMIT, "response larger than the limit of %zu bytes",
                          req->max_response_bytes);
    if (rc == CURLE_OPERATION_TIMEDOUT && sink->reached) /* a silent server: not retried */
        return cres__fail(err, CRES_ERR_TIMEOUT, "no complete answer within %d ms (%s)",
                          req->timeout_ms, text);
    return cres__fail(err, CRES_ERR_TRANSPORT, "%s", text); /* connect timeouts too: retried */
}

#if LIBCURL_VERSION_NUM >= 0x075000 /* 7.80: CURLOPT_PREREQFUNCTION */
/* Called once a connection, new or kept alive, is about to carry the request. */
static int cres__curl_prereq(void *user, char *conn_primary_ip, char *conn_local_ip,
                             int conn_primary_port, int conn_local_port) {
    (void)conn_primary_ip, (void)conn_local_ip, (void)conn_primary_port, (void)conn_local_port;
    ((cres__curl_sink *)user)->reached = 1;
    return CURL_PREREQFUNC_OK;
}

/* Called for every new socket, before its connect: when a kept-alive connection turned out
   dead, curl sends the request again on a new one, which has reached nobody yet. */
static int cres__curl_new_socket(void *user, curl_socket_t fd, curlsocktype purpose) {
    (void)fd, (void)purpose;
    ((cres__curl_sink *)user)->reached = 0;
    return CURL_SOCKOPT_OK;
}
#endif

static void cres__curl_close(void *user, void *session) {
    (void)user;
    curl_easy_cleanup((CURL *)session);
}

/* The request's headers as curl wants them, whole whatever their length (a service account
   token can pass 1 KB); NULL with *ok = 0 when out of memory. */
static struct curl_slist *cres__curl_headers(const cres_http_request *req, const cres_allocator *a,
                                             int *ok) {
    struct curl_slist *list = NULL, *more = NULL;
    size_t i;
    *ok = 1;
    for (i = 0; i < req->headers_count; i++) {
        size_t n = strlen(req->headers[i].name) + strlen(req->headers[i].value) + 3;
        char *line = (char *)cres__alloc(a, n);
        if (line) {
            snprintf(line, n, "%s: %s", req->headers[i].name, req->headers[i].value);
            more = curl_slist_append(list, line); /* copies it */
            cres__free(a, line);
        }
        if (!line || !more) {
            curl_slist_free_all(list);
            *ok = 0;
            return NULL;
        }
        list = more;
    }
    return list;
}

/* The lists and strings a request's TLS material needs while curl runs it. */
typedef struct cres__curl_tls {
    struct curl_slist *connect_to;
    char *url; /* the URL with tls->server_name as its host (curl's allocation) */
} cres__curl_tls;

/* tls->server_name: curl verifies (and sends SNI for) the URL's host, so the URL names the
   server name, CONNECT_TO sends the connection to the real host, and a Host header keeps the
   real host for HTTP. 0 when out of memory or the URL is not one curl can take apart. */
static int cres__curl_server_name(const cres_http_request *req, struct curl_slist **headers,
                                  cres__curl_tls *t) {
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL, *given = NULL, line[600];
    int ok = 0;
    if (u && !curl_url_set(u, CURLUPART_URL, req->url, 0) &&
        !curl_url_get(u, CURLUPART_HOST, &host, 0) &&
        !curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) && strlen(host) < 256 &&
        strlen(req->tls->server_name) < 256 &&
        !curl_url_set(u, CURLUPART_HOST, req->tls->server_name, 0) &&
        !curl_url_get(u, CURLUPART_URL, &t->url, 0)) {
        struct curl_slist *more;
        int explicit_port = !curl_url_get(u, CURLUPART_PORT, &given, 0);
        snprintf(line, sizeof line, "%s:%s:%s:%s", req->tls->server_name, port, host, port);
        t->connect_to = curl_slist_append(NULL, line);
        snprintf(line, sizeof line, "Host: %s%s%s", host, explicit_port ? ":" : "",
                 explicit_port ? port : "");
        more = t->connect_to ? curl_slist_append(*headers, line) : NULL;
        if (more) *headers = more;
        ok = more != NULL;
    }
    curl_free(host);
    curl_free(port);
    curl_free(given);
    curl_url_cleanup(u);
    return ok;
}

static void cres__curl_blob(CURL *c, CURLoption option, const char *pem) {
    struct curl_blob blob;
    blob.data = (void *)(size_t)pem; /* copied by curl: CURL_BLOB_COPY */
    blob.len = strlen(pem);
    blob.flags = CURL_BLOB_COPY;
    curl_easy_setopt(c, option, &blob);
}

/* The request's TLS material beyond ca_file (cres_http_tls); the proxy's TLS, as Go's, trusts
   what the server's does. 0 when out of memory. */
static int cres__curl_tls_options(CURL *c, const cres_http_request *req,
                                  struct curl_slist **headers, cres__curl_tls *t) {
    const cres_http_tls *tls = req->tls;
    if (tls->ca_pem) {
        cres__curl_blob(c, CURLOPT_CAINFO_BLOB, tls->ca_pem);
        cres__curl_blob(c, CURLOPT_PROXY_CAINFO_BLOB, tls->ca_pem);
    }
    if (tls->client_cert_pem && tls->client_key_pem) {
        curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
        cres__curl_blob(c, CURLOPT_SSLCERT_BLOB, tls->client_cert_pem);
        curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
        cres__curl_blob(c, CURLOPT_SSLKEY_BLOB, tls->client_key_pem);
    }
    if (tls->insecure_skip_verify) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
        curl_easy_setopt(c, CURLOPT_PROXY_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_PROXY_SSL_VERIFYHOST, 0L);
    }
    if (tls->proxy) { /* socks5 as Go dials it: the proxy resolves the name */
        char url[600];
        int socks = strncmp(tls->proxy, "socks5://", 9) == 0;
        snprintf(url, sizeof url, "%s%s", socks ? "socks5h://" : "", tls->proxy + (socks ? 9 : 0));
        curl_easy_setopt(c, CURLOPT_PROXY, url);
        curl_easy_setopt(c, CURLOPT_NOPROXY, "");
        if (req->ca_file) curl_easy_setopt(c, CURLOPT_PROXY_CAINFO, req->ca_file);
    }
    if (tls->server_name) {
        if (!cres__curl_server_name(req, headers, t)) return 0;
        curl_easy_setopt(c, CURLOPT_URL, t->url);
        curl_easy_setopt(c, CURLOPT_CONNECT_TO, t->connect_to);
    }
    return 1;
}

static void cres__curl_options(CURL *c, const cres_http_request *req, struct curl_slist *headers,
                               cres__curl_sink *sink, char *detail) {
    curl_easy_setopt(c, CURLOPT_URL, req->url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    /* every encoding this libcurl decodes (gzip at least): the API server compresses lists over
       128 KiB when asked; the size cap holds for the decoded body */
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);       /* safe in threads */
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L); /* a token never follows a redirect */
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    if (req->ca_file) curl_easy_setopt(c, CURLOPT_CAINFO, req->ca_file);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)req->timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                     (long)(req->timeout_ms < 5000 ? req->timeout_ms : 5000));
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)req->max_response_bytes);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, cres__curl_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, sink);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, cres__curl_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, sink);
#if LIBCURL_VERSION_NUM >= 0x075000
    curl_easy_setopt(c, CURLOPT_PREREQFUNCTION, cres__curl_prereq);
    curl_easy_setopt(c, CURLOPT_PREREQDATA, sink);
    curl_easy_setopt(c, CURLOPT_SOCKOPTFUNCTION, cres__curl_new_socket);
    curl_easy_setopt(c, CURLOPT_SOCKOPTDATA, sink);
#endif
    if (req->body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
    }
    if (req->method && strcmp(req->method, req->body ? "POST" : "GET") != 0)
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
}

static cres_result cres__curl_perform(void *user, const cres_http_request *req,
                                      cres_http_response *resp, const cres_allocator *alloc,
                                      cres_error *err) {
    CURL *c = req->session && *req->session ? (CURL *)*req->session : curl_easy_init();
    struct curl_slist *headers;
    cres__curl_sink sink;
    cres__curl_tls tls;
    char detail[CURL_ERROR_SIZE];
    CURLcode rc = CURLE_OUT_OF_MEMORY;
    long status = 0;
    int ok;
    (void)user;
    if (!c) return cres__fail(err, CRES_ERR_OUT_OF_MEMORY, "curl_easy_init failed");
    if (req->session) *req->session = c;
    curl_easy_reset(c); /* options go; the connection cache stays */
    memset(&sink, 0, sizeof sink);
    sink.curl = c;
    sink.a = alloc;
    sink.max = req->max_response_bytes;
    detail[0] = '\0';
    memset(&tls, 0, sizeof tls);
    headers = cres__curl_headers(req, alloc, &ok);
    if (ok) {
        cres__curl_options(c, req, headers, &sink, detail);
        if (req->tls && !cres__curl_tls_options(c, req, &headers, &tls)) ok = 0;
        else curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers); /* the Host line may be new */
    }
    if (ok) rc = curl_easy_perform(c);
    curl_slist_free_all(headers);
    curl_slist_free_all(tls.connect_to);
    curl_free(tls.url);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status); /* 0 until a status line arrives */
    resp->status = (int)status;
#if LIBCURL_VERSION_NUM < 0x075000 /* no PREREQFUNCTION: a connect time or a reused connection */
    if (rc != CURLE_OK) {
        double connect_time = 0;
        long fresh = 1;
        curl_easy_getinfo(c, CURLINFO_CONNECT_TIME, &connect_time);
        curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &fresh);
        sink.reached =
            connect_time > 0 || (fresh == 0 && strncmp(detail, "Connection timed out", 20) != 0);
    }
#endif
    if (!req->session) curl_easy_cleanup(c);
    if (rc != CURLE_OK) {
        cres__free(alloc, sink.data);
        return cres__curl_result(rc, &sink, detail, req, err);
    }
    if (!sink.data && !(sink.data = (char *)cres__alloc(alloc, 1)))
        return cres__fail(err, CRES_ERR_OUT_OF_MEMORY, "out of memory");
    sink.data[sink.len] = '\0';
    resp->body = sink.data;
    resp->body_len = sink.len;
    resp->retry_after_s = sink.retry_after_s;
    return CRES_OK;
}

static cres_transport cres__curl_transport_value(void) {
    cres_transport t;
    t.perform = cres__curl_perform;
    t.user = NULL;
    t.close_session = cres__curl_close;
    t.features = CRES_TRANSPORT_CA_PEM | CRES_TRANSPORT_CLIENT_CERT | CRES_TRANSPORT_SERVER_NAME |
                 CRES_TRANSPORT_PROXY | CRES_TRANSPORT_INSECURE;
    return t;
}

CRES_API cres_transport cres_curl_transport(void) { return cres__curl_transport_value(); }
#endif /* CLUSTER_RESOLVER_USE_CURL */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Simple: a spec the caller gives                                                 >>simple */

#if !defined(CLUSTER_RESOLVER_NO_SIMPLE) || !defined(CLUSTER_RESOLVER_NO_TFCONFIG) || \
    !defined(CLUSTER_RESOLVER_NO_VERTEX) || !defined(CLUSTER_RESOLVER_NO_LOCAL) || \
    defined(CRES__HPC)
/* Also the TF_CONFIG resolver's state: a spec read once, and a master string (and the local
   resolver's: its spec of one task, made at create). The HPC backends' state starts as this
   one does (base, spec): cres__simple_resolve serves them too. */
typedef struct cres__simple {
    cres_resolver base;
    cres_cluster_spec *spec;
    char *master;       /* simple: options.master; tfconfig: session_master */
    cres_accelerators accelerators;
} cres__simple;

CRES__PRIVATE cres_result cres__simple_resolve(cres_resolver *r, cres_cluster_spec **out,
                                              cres_error *err) {
    return cres_spec_clone(((cres__simple *)r)->spec, &r->config.allocator, out, err);
}

CRES__PRIVATE cres_result cres__simple_master(cres_resolver *r, const char *task_type, int task_id,
                                             const char *rpc_layer, char *buf, size_t cap,
                                             size_t *out_len, cres_error *err) {
    cres__simple *s = (cres__simple *)r;
    if (s->master && !(task_type && task_id >= 0))
        return cres__write_master(s->master, rpc_layer ? rpc_layer : r->rpc_layer, buf, cap,
                                  out_len, err);
    return cres__master_of_task(r, task_type, task_id, rpc_layer, "", buf, cap, out_len, err);
}

CRES__PRIVATE cres_result cres__simple_accelerators(cres_resolver *r, const char *task_type,
                                                   int task_id, cres_accelerators *out,
                                                   cres_error *err) {
    (void)task_type;
    (void)task_id;
    (void)err;
    *out = ((cres__simple *)r)->accelerators;
    return CRES_OK;
}

CRES__PRIVATE void cres__simple_destroy(cres_resolver *r) {
    cres__simple *s = (cres__simple *)r;
    cres_spec_free(s->spec);
    cres__free(&r->config.allocator, s->master);
}
#endif

#ifndef CLUSTER_RESOLVER_NO_SIMPLE
CRES__BYTE_ALIGNED static const char cres__simple_vtable_name[] = "simple";
static const cres_resolver_vtable cres__simple_vtable = {
    cres__simple_vtable_name, cres__simple_resolve, cres__simple_master, cres__simple_accelerators,
    cres__simple_destroy, NULL, NULL};

/* The accelerators a caller gives: a count of 0 or more of each kind, its type a string. */
CRES__PRIVATE cres_result cres__check_accelerators(const cres_accelerators *acc, cres_error *err) {
    size_t i;
    if (acc->count > CRES_MAX_ACCELERATOR_KINDS)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "simple: more than 8 accelerator kinds");
    for (i = 0; i < acc->count; i++)
        if (acc->items[i].count < 0 ||
            !memchr(acc->items[i].type, '\0', CRES_ACCELERATOR_TYPE_SIZE))
            return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                              "simple: options.accelerators item %zu: count negative or type not "
                              "NUL-terminated",
                              i);
    return CRES_OK;
}

CRES_API cres_result cres_simple_resolver_create(const cres_simple_options *o, cres_resolver **out,
                                                 cres_error *err) {
    cres_resolver *r;
    cres__simple *s;
    cres_result res;
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "simple: out is NULL");
    *out = NULL;
    if (!o || !o->spec)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "simple: options.spec is required");
    if (o->accelerators && (res = cres__check_accelerators(o->accelerators, err)) != CRES_OK)
        return res;
    if ((res = cres_resolver_new(sizeof *s, &cres__simple_vtable, o->config, &r, err)) != CRES_OK)
        return res;
    s = (cres__simple *)r;
    if (o->accelerators) s->accelerators = *o->accelerators;
    res = cres_spec_clone(o->spec, &r->config.allocator, &s->spec, err);
    if (res == CRES_OK && o->master) res = cres__set_string(r, &s->master, o->master, err);
    if (res == CRES_OK) res = cres_set_environment(r, o->environment, err);
    if (res == CRES_OK) res = cres__apply_options(r, o->task_type, o->task_id, o->rpc_layer, err);
    return cres__created(r, res, out);
}
#else
CRES__LEFT_OUT(cres_simple_resolver_create, cres_simple_options, "simple",
               "CLUSTER_RESOLVER_NO_SIMPLE")
#endif /* CLUSTER_RESOLVER_NO_SIMPLE */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Union: several resolvers merged                                                  >>union */

#ifndef CLUSTER_RESOLVER_NO_UNION
typedef struct cres__union {
    cres_resolver base;
    cres_resolver **children;
    size_t count;
    int owns;
} cres__union;

/* The first child's task fills what the union's own overrides leave open. */
CRES__PRIVATE cres_result cres__union_inherit(cres__union *u, cres_error *err) {
    cres_resolver *first = u->children[0];
    return cres_set_detected_task(&u->base, first->task_type, first->task_id, err);
}

CRES__PRIVATE cres_result cres__union_resolve(cres_resolver *r, cres_cluster_spec **out,
                                             cres_error *err) {
    cres__union *u = (cres__union *)r;
    cres_cluster_spec *merged, *part;
    cres_result res;
    size_t i;
    if ((res = cres_spec_create(&r->config.allocator, &merged, err)) != CRES_OK) return res;
    for (i = 0; i < u->count && res == CRES_OK; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "union: resolver %zu (%s): ", i,
                 u->children[i]->vtable->name);
        res = cres_resolve(u->children[i], &part, err);
        if (res == CRES_OK) {
            res = cres_spec_merge(merged, part, err);
            cres_spec_free(part);
        }
        if (res != CRES_OK) res = cres__wrap(err, res, CRES_OK, prefix);
    }
    if (res == CRES_OK) res = cres__union_inherit(u, err);
    if (res != CRES_OK) {
        cres_spec_free(merged);
        return res;
    }
    *out = merged;
    return CRES_OK;
}

CRES__PRIVATE cres_result cres__union_master(cres_resolver *r, const char *task_type, int task_id,
                                            const char *rpc_layer, char *buf, size_t cap,
                                            size_t *out_len, cres_error *err) {
    cres__union *u = (cres__union *)r;
    if ((task_type || r->task_type) && (task_id >= 0 || r->task_id >= 0))
        return cres__master_of_task(r, task_type, task_id, rpc_layer, NULL, buf, cap, out_len, err);
    return cres_master_of(u->children[0], NULL, CRES_OWN_TASK, rpc_layer, buf, cap, out_len, err);
}

CRES__PRIVATE cres_result cres__union_accelerators(cres_resolver *r, const char *task_type,
                                                  int task_id, cres_accelerators *out,
                                                  cres_error *err) {
    return cres_num_accelerators_of(((cres__union *)r)->children[0], task_type, task_id, out, err);
}

CRES__PRIVATE cres_result cres__union_devices(cres_resolver *r, const char *task_type, int task_id,
                                              char *buf, size_t cap, size_t *out_len,
                                              cres_error *err) {
    return cres_visible_devices_of(((cres__union *)r)->children[0], task_type, task_id, buf, cap,
                                   out_len, err);
}

CRES__PRIVATE void cres__union_destroy(cres_resolver *r) {
    cres__union *u = (cres__union *)r;
    size_t i;
    for (i = 0; i < u->count && u->owns; i++) {
        u->children[i]->owner = NULL; /* unmarked, so that cres_resolver_free() frees it */
        cres_resolver_free(u->children[i]);
    }
    cres__free(&r->config.allocator, u->children);
}

CRES__BYTE_ALIGNED static const char cres__union_vtable_name[] = "union";
static const cres_resolver_vtable cres__union_vtable = {
    cres__union_vtable_name, cres__union_resolve, cres__union_master, cres__union_accelerators,
    cres__union_destroy, cres__union_devices, NULL};

/* Whether resolvers[i] cannot join the union (NULL, given twice, owned by another union when
   this one would own it too), and why in `why`. */
CRES__PRIVATE int cres__union_unfit(const cres_union_options *o, size_t i, char *why, size_t cap) {
    size_t k;
    for (k = 0; k < i && o->resolvers[k] != o->resolvers[i]; k++) {}
    if (!o->resolvers[i]) snprintf(why, cap, "is NULL");
    else if (k < i) snprintf(why, cap, "is resolvers[%zu] again", k);
    else if (o->owns_resolvers && o->resolvers[i]->owner) snprintf(why, cap, "has another owner");
    else return 0;
    return 1;
}

/* A failed create frees what it was given to own: each child once, none another owns. */
CRES__PRIVATE void cres__union_drop(const cres_union_options *o) {
    char why[48];
    size_t i;
    for (i = 0; i < o->resolvers_count && o->owns_resolvers; i++)
        if (!cres__union_unfit(o, i, why, sizeof why)) cres_resolver_free(o->resolvers[i]);
}

CRES_API cres_result cres_union_resolver_create(const cres_union_options *o, cres_resolver **out,
                                                cres_error *err) {
    cres_resolver *r = NULL;
    cres__union *u = NULL;
    cres_result res = CRES_OK;
    size_t i;
    char why[48];
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "union: out is NULL");
    *out = NULL;
    if (!o || !o->resolvers || o->resolvers_count == 0)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "union: %s",
                          o ? "at least one resolver is required"
                            : "options is NULL (it holds the resolvers)");
    for (i = 0; i < o->resolvers_count && res == CRES_OK; i++)
        if (cres__union_unfit(o, i, why, sizeof why))
            res = cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "union: resolvers[%zu] %s", i, why);
    if (res == CRES_OK) res = cres_resolver_new(sizeof *u, &cres__union_vtable, o->config, &r, err);
    if (res == CRES_OK) {
        u = (cres__union *)r;
        u->children = (cres_resolver **)cres__alloc(&r->config.allocator,
                                                    o->resolvers_count * sizeof *u->children);
        if (!u->children) res = cres__oom(err, "union");
    }
    if (res != CRES_OK) { /* the union cannot free them without its array */
        cres__union_drop(o);
        cres_resolver_free(r);
        return res;
    }
    memcpy(u->children, o->resolvers, o->resolvers_count * sizeof *u->children);
    u->count = o->resolvers_count;
    u->owns = o->owns_resolvers;
    for (i = 0; i < u->count && u->owns; i++) u->children[i]->owner = r;
    res = cres__union_inherit(u, err);
    if (res == CRES_OK) res = cres__set_string(r, &r->rpc_layer, u->children[0]->rpc_layer, err);
    if (res == CRES_OK) res = cres_set_environment(r, cres_environment(u->children[0]), err);
    if (res == CRES_OK) res = cres__apply_options(r, o->task_type, o->task_id, o->rpc_layer, err);
    return cres__created(r, res, out);
}
#else
CRES__LEFT_OUT(cres_union_resolver_create, cres_union_options, "union", "CLUSTER_RESOLVER_NO_UNION")
#endif /* CLUSTER_RESOLVER_NO_UNION */

/* ////////////////////////////////////////////////////////////////////////////////////////
   TF_CONFIG                                                                     >>tfconfig */

#if !defined(CLUSTER_RESOLVER_NO_TFCONFIG) || !defined(CLUSTER_RESOLVER_NO_VERTEX)
typedef cres__simple cres__tfconfig; /* master holds session_master */

CRES__PRIVATE cres_result cres__tfconfig_master(cres_resolver *r, const char *task_type,
                                                int task_id, const char *rpc_layer, char *buf,
                                                size_t cap, size_t *out_len, cres_error *err) {
    cres__tfconfig *t = (cres__tfconfig *)r;
    if (t->master) return cres__write_master(t->master, NULL, buf, cap, out_len, err);
    if (!task_type && task_id < 0 && cres__spec_is_local(t->spec))
        return cres__write_master("", NULL, buf, cap, out_len, err);
    return cres__master_of_task(r, task_type, task_id, rpc_layer, NULL, buf, cap, out_len, err);
}

CRES__BYTE_ALIGNED static const char cres__tfconfig_vtable_name[] = "tfconfig";
static const cres_resolver_vtable cres__tfconfig_vtable = {
    cres__tfconfig_vtable_name, cres__simple_resolve, cres__tfconfig_master, NULL,
    cres__simple_destroy, NULL, NULL};

/* Reads an optional string member; null counts as absent. */
CRES__PRIVATE cres_result cres__tf_string(const cres__json *d, int obj, const char *key,
                                         const char *src, char **out, cres_error *err) {
    int v, ok;
    char q[CRES__QUOTE_SIZE];
    cres_result res = cres__json_member(d, obj, key, &v, src, CRES_ERR_ENVIRONMENT, err);
    *out = NULL;
    if (res != CRES_OK || v < 0 || cres__json_is_null(d, v)) return res;
    if (d->t[v].type != JSMN_STRING)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: \"%s\" must be a string, not %s", src,
                          key, cres__json_quote(d, v, q, sizeof q));
    ok = cres__json_strdup(d, v, out);
    if (ok == 0) return cres__oom(err, src);
    if (ok < 0)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: \"%s\" contains a NUL character", src,
                          key);
    return CRES_OK;
}

/* What TF_CONFIG (or Vertex AI's CLUSTER_SPEC, of the same shape) says about the own task
   and the rest, before it is put in the resolver. */
typedef struct cres__tf_fields {
    const char *src;   /* the variable, for messages */
    int dense;         /* jobs must be lists (CLUSTER_SPEC) */
    char *task_type, *rpc_layer, *environment;
    int task_id;
} cres__tf_fields;

CRES__PRIVATE cres_result cres__tf_read_task(const cres__json *d, int task, cres__tf_fields *f,
                                            const cres_allocator *a, cres_error *err) {
    int type, index;
    char q[CRES__QUOTE_SIZE], why[160], what[48];
    cres_result res;
    if (!cres__json_is(d, task, JSMN_OBJECT))
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: \"task\" must be an object, not %s",
                          f->src, cres__json_quote(d, task, q, sizeof q));
    snprintf(what, sizeof what, "%s: \"task\"", f->src);
    if ((res = cres__json_member(d, task, "type", &type, what, CRES_ERR_ENVIRONMENT, err)) !=
            CRES_OK ||
        (res = cres__json_member(d, task, "index", &index, what, CRES_ERR_ENVIRONMENT, err)) !=
            CRES_OK)
        return res;
    if (type >= 0 && !cres__json_is_null(d, type)) {
        const jsmntok_t *t = &d->t[type];
        long long ignored;
        int ok = 1;
        if (t->type == JSMN_STRING) {
            ok = cres__json_strdup(d, type, &f->task_type);
        } else if (t->type == JSMN_PRIMITIVE &&
                   cres__parse_decimal(d->s + t->start, (size_t)(t->end - t->start), &ignored) ==
                       1) {
            /* 123 -> "123" */
            f->task_type = cres__strndup(a, d->s + t->start, (size_t)(t->end - t->start));
            ok = f->task_type != NULL;
        } else {
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "%s: \"task.type\" must be a string, not %s", f->src,
                              cres__json_quote(d, type, q, sizeof q));
        }
        if (ok == 0) return cres__oom(err, f->src);
        if (ok < 0)
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "%s: \"task.type\" contains a NUL character", f->src);
        if ((res = cres__check_job_name(f->task_type, err)) != CRES_OK) {
            snprintf(what, sizeof what, "%s: \"task.type\": ", f->src);
            return cres__wrap(err, res, CRES_ERR_ENVIRONMENT, what);
        }
    }
    if (index >= 0 && !cres__json_is_null(d, index) &&
        !cres__json_index(d, index, 1, &f->task_id, why, sizeof why))
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: \"task.index\" %s", f->src, why);
    return CRES_OK;
}

/* The own task must be a task of the cluster, except for "evaluator", which TensorFlow runs
   outside it. An empty cluster cannot be checked. */
CRES__PRIVATE cres_result cres__tf_check_task(const cres_cluster_spec *spec,
                                              const cres__tf_fields *f, cres_error *err) {
    const cres_job *job;
    char q[CRES__QUOTE_SIZE];
    if (!f->task_type || spec->count == 0 || (!f->dense && strcmp(f->task_type, "evaluator") == 0))
        return CRES_OK; /* TF runs its evaluator outside the cluster; Vertex lists it */
    cres__quote_str(q, sizeof q, f->task_type);
    job = cres_spec_job(spec, f->task_type);
    if (!job) {
        char jobs[2 + 96] = ""; /* ", a, b": the message skips the first ", " */
        size_t i, n = 0;
        for (i = 0; i < spec->count && n + 4 < sizeof jobs; i++)
            n += (size_t)snprintf(jobs + n, sizeof jobs - n, ", %s", spec->jobs[i].pub.name);
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: \"task.type\" %s is not a job of \"cluster\" (its jobs: %s)",
                          f->src, q, jobs + 2);
    }
    if (f->task_id >= 0 && !cres_spec_task_address(spec, f->task_type, f->task_id))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: \"task.index\" %d is not a task of job %s (it has %zu)", f->src,
                          f->task_id, q, job->tasks_count);
    return CRES_OK;
}

/* CLUSTER_SPEC's jobs (Vertex AI's worker pools) are lists, never TF's sparse objects. */
CRES__PRIVATE cres_result cres__tf_dense(const cres__json *d, int cluster, const char *src,
                                        cres_error *err) {
    int k = cluster + 1, n;
    char q[CRES__QUOTE_SIZE];
    if (!cres__json_is(d, cluster, JSMN_OBJECT)) return CRES_OK; /* reported by the reader */
    for (n = 0; n < d->t[cluster].size; n++, k = cres__json_next(d, k + 1))
        if (!cres__json_is(d, k + 1, JSMN_ARRAY))
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "%s: \"cluster\" member %s must be a list of addresses, not %s",
                              src, cres__json_quote(d, k, q, sizeof q),
                              cres__json_quote(d, k + 1, q + 40, sizeof q - 40));
    return CRES_OK;
}

/* Whether the n bytes at key are one of the space-separated words. */
CRES__PRIVATE int cres__is_word_of(const char *words, const char *key, size_t n) {
    while (*words) {
        size_t len = strcspn(words, " ");
        if (len == n && memcmp(words, key, n) == 0) return 1;
        words += len + (words[len] == ' ');
    }
    return 0;
}

/* The keys of object obj that are not words of `known`, quoted into out ("\"cluser\", ..."),
   "" when none: a typo TensorFlow would ignore must not pass unsaid. */
CRES__PRIVATE const char *cres__unknown_keys(const cres__json *d, int obj, const char *known,
                                             char *out, size_t cap) {
    int k = obj + 1, m;
    size_t n = 0;
    char q[CRES__QUOTE_SIZE];
    *out = '\0';
    for (m = 0; m < d->t[obj].size && n + 8 < cap; m++, k = cres__json_next(d, k + 1))
        if (!cres__is_word_of(known, d->s + d->t[k].start, (size_t)(d->t[k].end - d->t[k].start)))
            n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? ", " : "",
                                  cres__json_quote(d, k, q, sizeof q));
    return out;
}

/* A task TensorFlow would take with nothing to find it in: an index without a type, a half
   task beside keys TF_CONFIG does not have ("indx", "Type"), or a task (TF's "evaluator"
   excepted) beside no cluster; a typo most often, which the message names. */
CRES__PRIVATE cres_result cres__tf_check_shape(const char *top, const char *in_task,
                                               const cres_cluster_spec *spec,
                                               const cres__tf_fields *f, cres_error *err) {
    const char *why = NULL, *keys = in_task;
    if (!f->task_type && (f->task_id >= 0 || *in_task))
        why = f->task_id >= 0 ? "has an \"index\" but no \"type\""
                              : "has no \"type\" and no \"index\"";
    else if (f->task_type && f->task_id < 0 && *in_task)
        why = "has a \"type\" but no \"index\"";
    else if (f->task_type && spec->count == 0 && !f->dense && /* vertex says its own */
             strcmp(f->task_type, "evaluator") != 0)
        why = "is given but \"cluster\" is missing or empty", keys = top;
    if (!why) return CRES_OK;
    return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: \"task\" %s%s%s%s", f->src, why,
                      *keys ? " (unknown keys: " : "", keys, *keys ? ")" : "");
}

/* Parses TF_CONFIG (or CLUSTER_SPEC) text into t->spec, t->master (session_master) and f. */
CRES__PRIVATE cres_result cres__tf_parse(cres__tfconfig *t, const char *text, cres__tf_fields *f,
                                        cres_error *err) {
    const cres_allocator *a = &t->base.config.allocator;
    size_t len = strlen(text);
    cres__json d;
    int cluster = -1, task = -1;
    cres_result res;
    char q[CRES__QUOTE_SIZE], what[48], top[120], in_task[120];
    if (cres__is_blank(text)) return CRES_OK;
    if ((res = cres__json_parse_document(&d, text, len, a, f->src, CRES_ERR_ENVIRONMENT, err)) !=
        CRES_OK)
        return res;
    if (d.t[0].type != JSMN_OBJECT)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: must be a JSON object, not %s", f->src,
                         cres__json_quote(&d, 0, q, sizeof q));
    if (res == CRES_OK)
        res = cres__json_member(&d, 0, "cluster", &cluster, f->src, CRES_ERR_ENVIRONMENT, err);
    if (res == CRES_OK && !f->dense && (cluster < 0 || cres__json_is_null(&d, cluster)))
        res = cres__json_member(&d, 0, "sparseCluster", &cluster, f->src, CRES_ERR_ENVIRONMENT,
                                err);
    if (res == CRES_OK && f->dense && (cluster < 0 || cres__json_is_null(&d, cluster)))
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: \"cluster\" is missing", f->src);
    if (res == CRES_OK && f->dense) res = cres__tf_dense(&d, cluster, f->src, err);
    if (res == CRES_OK && cluster >= 0 && !cres__json_is_null(&d, cluster)) {
        snprintf(what, sizeof what, "%s: \"cluster\"", f->src);
        res = cres__spec_read_json(t->spec, &d, cluster, what, CRES_ERR_ENVIRONMENT, err);
    }
    if (res == CRES_OK)
        res = cres__json_member(&d, 0, "task", &task, f->src, CRES_ERR_ENVIRONMENT, err);
    if (res == CRES_OK && task >= 0 && !cres__json_is_null(&d, task))
        res = cres__tf_read_task(&d, task, f, a, err);
    if (res == CRES_OK) res = cres__tf_string(&d, 0, "rpc_layer", f->src, &f->rpc_layer, err);
    if (res == CRES_OK)
        res = cres__tf_string(&d, 0, "environment", f->src, &f->environment, err);
    if (res == CRES_OK && !f->dense)
        res = cres__tf_string(&d, 0, "session_master", f->src, &t->master, err);
    if (res == CRES_OK) {
        cres__unknown_keys(&d, 0, f->dense ? "cluster task environment job"
                                           : "cluster sparseCluster task rpc_layer environment "
                                             "session_master",
                           top, sizeof top);
        *in_task = '\0';
        if (task >= 0 && cres__json_is(&d, task, JSMN_OBJECT))
            cres__unknown_keys(&d, task, "type index trial", in_task, sizeof in_task);
        if (*top || *in_task)
            cres__log(&t->base, CRES_LOG_WARN, "%s: unknown keys %s%s%s%s (TensorFlow ignores "
                      "them)", f->src, top, *top && *in_task ? ", " : "",
                      *in_task ? "in \"task\" " : "", in_task);
        res = cres__tf_check_shape(top, in_task, t->spec, f, err);
    }
    if (res == CRES_OK) res = cres__tf_check_task(t->spec, f, err);
    cres__json_free(&d);
    return res;
}

/* tfconfig and vertex: the document `text`, else the variable f->src (unset: none), read as
   `f` says. */
CRES__PRIVATE cres_result cres__tf_create(const cres_resolver_vtable *vtable,
                                         const cres_config *config, const char *text,
                                         cres__tf_fields *f, const char *environment,
                                         cres_resolver **r, cres_error *err) {
    cres__tfconfig *t;
    cres_result res = cres_resolver_new(sizeof *t, vtable, config, r, err);
    if (res != CRES_OK) return res;
    t = (cres__tfconfig *)*r;
    if (!text) text = cres_resolver_getenv(*r, f->src);
    f->task_id = -1;
    cres__log(*r, CRES_LOG_DEBUG, "%s: reading %s (%zu bytes)", vtable->name, f->src,
              text ? strlen(text) : (size_t)0);
    res = cres_spec_create(&(*r)->config.allocator, &t->spec, err);
    if (res == CRES_OK && text) res = cres__tf_parse(t, text, f, err);
    if (res == CRES_OK) res = cres_set_detected_task(*r, f->task_type, f->task_id, err);
    if (res == CRES_OK) res = cres_set_rpc_layer(*r, f->rpc_layer, err);
    if (res == CRES_OK)
        res = cres_set_environment(*r, environment ? environment : f->environment, err);
    cres__free(&(*r)->config.allocator, f->task_type);
    cres__free(&(*r)->config.allocator, f->rpc_layer);
    cres__free(&(*r)->config.allocator, f->environment);
    return res;
}

#endif

#ifndef CLUSTER_RESOLVER_NO_TFCONFIG
CRES_API cres_result cres_tfconfig_resolver_create(const cres_tfconfig_options *o,
                                                   cres_resolver **out, cres_error *err) {
    cres_tfconfig_options none;
    cres_resolver *r = NULL;
    cres__tf_fields f;
    cres_result res;
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "tfconfig: out is NULL");
    *out = NULL;
    memset(&f, 0, sizeof f);
    f.src = o->json ? "options.json" : "TF_CONFIG";
    res = cres__tf_create(&cres__tfconfig_vtable, o->config, o->json, &f, o->environment, &r, err);
    if (res == CRES_OK && (!r->task_type || r->task_id < 0))
        r->no_task_why = o->json ? "options.json gives no task of a type and an index"
                                 : "TF_CONFIG gives no task of a type and an index";
    if (res == CRES_OK) res = cres__apply_options(r, o->task_type, o->task_id, o->rpc_layer, err);
    if (!r) return res;
    return cres__created(r, res, out);
}
#else
CRES__LEFT_OUT(cres_tfconfig_resolver_create, cres_tfconfig_options, "tfconfig",
               "CLUSTER_RESOLVER_NO_TFCONFIG")
#endif /* CLUSTER_RESOLVER_NO_TFCONFIG */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Local: one task on this host                                                     >>local */

#ifndef CLUSTER_RESOLVER_NO_LOCAL
/* The state is a cres__simple's: the spec of the one task, made at create, without a master
   string. */
CRES__BYTE_ALIGNED static const char cres__local_vtable_name[] = "local";
static const cres_resolver_vtable cres__local_vtable = {
    cres__local_vtable_name, cres__simple_resolve, NULL, NULL, cres__simple_destroy, NULL, NULL};

CRES_API cres_result cres_local_resolver_create(const cres_local_options *o, cres_resolver **out,
                                                cres_error *err) {
    static cres_local_options none; /* the defaults: see "Footprint" in >>impl */
    cres_resolver *r;
    cres__simple *l;
    const char *job;
    char *address;
    cres_result res;
    if (!o) o = &none;
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "local: out is NULL");
    *out = NULL;
    if (o->port < 0 || o->port > 65535)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "local: port %d is not 1 to 65535",
                          o->port);
    if ((res = cres_resolver_new(sizeof *l, &cres__local_vtable, o->config, &r, err)) != CRES_OK)
        return res;
    l = (cres__simple *)r;
    job = o->job_name ? o->job_name : "worker";
    address = cres__join_host_port(&r->config.allocator, o->host ? o->host : "localhost",
                                   o->port ? o->port : CRES__DEFAULT_PORT);
    /* cres_spec_add_task checks the name, then the address, as the messages say */
    res = address ? cres_spec_create(&r->config.allocator, &l->spec, err)
                  : cres__oom(err, cres__local_vtable_name);
    if (res == CRES_OK) res = cres_spec_add_task(l->spec, job, 0, address, err);
    cres__free(&r->config.allocator, address); /* the spec has its copy */
    if (res == CRES_OK) res = cres_set_detected_task(r, job, 0, err);
    if (res == CRES_OK && o->rpc_layer) res = cres_set_rpc_layer(r, o->rpc_layer, err);
    if (res != CRES_OK) {
        cres_resolver_free(r);
        return cres__wrap(err, res, CRES_OK, res == CRES_ERR_OUT_OF_MEMORY ? "" : "local: ");
    }
    *out = r;
    return CRES_OK;
}
#else
CRES__LEFT_OUT(cres_local_resolver_create, cres_local_options, "local", "CLUSTER_RESOLVER_NO_LOCAL")
#endif /* CLUSTER_RESOLVER_NO_LOCAL */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Kubernetes: pods selected by labels                                                >>k8s */

#ifndef CLUSTER_RESOLVER_NO_K8S
#ifndef CRES_MAX_K8S_PAGES
#  define CRES_MAX_K8S_PAGES 1000 /* pages per selector: a continue loop cannot run on */
#endif
#ifndef CRES_MAX_K8S_PODS
#  define CRES_MAX_K8S_PODS 100000 /* pods per job */
#endif
#define CRES__K8S_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount/"
#define CRES__K8S_INDEX_KEY "batch.kubernetes.io/job-completion-index"
/* What the JobSet controller puts on its pods (kubernetes-sigs/jobset, api/jobset/v1alpha2/
   jobset_types.go): the JobSet's name, and each Job's index across the whole JobSet, since
   completion indices restart in every Job (the latter since jobset#650, August 2024). */
#define CRES__K8S_JOBSET_KEY "jobset.sigs.k8s.io/jobset-name"
#define CRES__K8S_GLOBAL_KEY "jobset.sigs.k8s.io/job-global-index"

/* What we keep of a pod: one allocation, this header and then its strings, so memory grows
   with pods by about a hundred bytes each, not with page bytes. A string is found by its
   offset (at[f] - 1 after the header; 0 = absent): eight pointers would be most of a pod. */
enum { /* jobset: the label jobset.sigs.k8s.io/jobset-name */
    CRES__POD_name, CRES__POD_ns, CRES__POD_ip, CRES__POD_host_ip, CRES__POD_hostname,
    CRES__POD_subdomain, CRES__POD_phase, CRES__POD_jobset, CRES__POD_FIELDS
};
typedef struct cres__pod {
    int index;                 /* Indexed Job completion index, -1 when none */
    int global;                /* a JobSet pod's job-global-index, -1 for other pods */
    unsigned short at[CRES__POD_FIELDS];
    unsigned char terminating; /* metadata.deletionTimestamp is set */
    unsigned char running;     /* status.phase is "Running" (then phase is not kept) */
    unsigned char own;         /* its name or spec.hostname is the resolver's hostname */
} cres__pod;

/* A pod's string: CRES__POD(p, name); NULL when absent (ns is "" then). */
#define CRES__POD(p, field) cres__pod_str((p), CRES__POD_##field)

typedef struct cres__pods {
    cres__pod **items;
    size_t count, cap;
} cres__pods;

/* An exec plugin's credential, kept until it expires. */
typedef struct cres__kube_cred {
    char *token, *cert_pem, *key_pem; /* owned; NULL when the plugin gave none */
    long long expires;                /* Unix seconds; LLONG_MAX = never */
    int have;
} cres__kube_cred;

/* What a kubeconfig says beyond the server, read once at create. The strings point into
   `owned`, which holds every block read from the files. */
typedef struct cres__kube {
    void **owned;
    size_t owned_count, owned_cap;
    int used;                   /* the settings came from a kubeconfig */
    char *ns;                   /* the context's namespace; NULL = "default" */
    cres_http_tls tls;          /* the cluster's and the user's */
    char *token, *token_file, *basic, *as_user, *as_uid;
    char **as_groups;
    size_t as_groups_count;
    char **exec_argv;           /* the plugin and its args; NULL = no exec */
    char **exec_env;            /* exec.env as "NAME=VALUE", NULL-ended */
    char *exec_info, *exec_api, *exec_hint, *exec_config, *exec_where;
    int exec_provide;           /* provideClusterInfo */
    cres__kube_cred cred;
} cres__kube;

typedef struct cres__k8s {
    cres_resolver base;
    cres_k8s_job_selector *jobs; /* owned copies */
    size_t jobs_count;
    char *server, *token, *token_file, *ca_file, *ns, *hostname, *cluster_domain;
    char *completion_index; /* $JOB_COMPLETION_INDEX at create, for members JOB */
    int all_namespaces, port, page_size, wait_ms, follow_jobset;
    cres_k8s_members members; /* LIST or JOB */
    cres_k8s_address address;
    cres__kube kube;
} cres__k8s;

/* ////////////////////////////////////////////////////////////////////////////////////////
   Kubernetes from outside the cluster: kubeconfig files, exec plugins            >>kubeconfig

   Read as client-go (kubectl) reads them: options.kubeconfig alone, else the files of
   $KUBECONFIG in order, else ~/.kube/config; a cluster, user or context comes whole from the
   first file that names it, current-context from the first file that sets it, relative paths
   from the directory of the file that holds them. JSON is read as it is; YAML is turned into
   JSON first (libyaml, CLUSTER_RESOLVER_USE_YAML), as client-go does. */

#ifndef CLUSTER_RESOLVER_NO_KUBECONFIG
#ifndef CRES_MAX_KUBECONFIG_FILES
#  define CRES_MAX_KUBECONFIG_FILES 64 /* names in $KUBECONFIG */
#endif
#define CRES__EXEC_MAX_OUTPUT (1024u * 1024u) /* an ExecCredential is a few KB */
#define CRES__EXEC_TIMEOUT_MS 60000           /* a plugin's run when the resolve has no bound */
#define CRES__EXEC_INFO "KUBERNETES_EXEC_INFO"
#define CRES__EXEC_V1 "client.authentication.k8s.io/v1"

/* Arrays, not the literals TF_CONFIG's reader and the Google credentials share (see
   "Footprint" in >>impl). */
CRES__BYTE_ALIGNED static const char cres__kcluster[] = "cluster", cres__khome_var[] = "HOME",
                                     cres__kblanks[] = " \t\r\n";
#define CRES__EXEC_V1BETA1 "client.authentication.k8s.io/v1beta1"

/* ---- YAML as JSON text ------------------------------------------------------------------ */

#ifdef CLUSTER_RESOLVER_USE_YAML
#  include <yaml.h>

/* One open collection of the conversion, and where each anchor's JSON text lies. */
typedef struct cres__yframe {
    int mapping;  /* else a sequence */
    size_t items; /* values written so far (a mapping counts keys and values) */
    size_t start; /* offset of its '{' or '[' */
    char *anchor; /* libyaml's, freed with yaml_free */
} cres__yframe;

typedef struct cres__yanchor {
    char *name; /* ours */
    size_t start, end;
} cres__yanchor;

typedef struct cres__yconv {
    const cres_allocator *a;
    char *out;
    size_t len, cap;
    cres__yframe stack[CRES_MAX_JSON_DEPTH];
    int depth;
    cres__yanchor *anchors;
    size_t anchors_count, anchors_cap;
    int oom, too_big;
} cres__yconv;

/* Room for n more bytes at the end of the text, within the limit; NULL when there is none
   (then oom or too_big says why). */
CRES__PRIVATE char *cres__yroom(cres__yconv *y, size_t n) {
    if (y->oom || y->too_big) return NULL;
    if (n > CRES_MAX_DOCUMENT_BYTES - y->len) {
        y->too_big = 1; /* aliases can grow a small file without bound */
        return NULL;
    }
    if (!cres__grow(y->a, (void **)&y->out, &y->cap, 1, y->len + n + 1)) {
        y->oom = 1;
        return NULL;
    }
    return y->out + y->len;
}

CRES__PRIVATE void cres__yput(cres__yconv *y, const char *s, size_t n) {
    char *at = cres__yroom(y, n);
    if (!at) return;
    memcpy(at, s, n);
    y->len += n;
}

/* A scalar of n bytes as a JSON string: measured, then written in place. */
CRES__PRIVATE void cres__yput_string(cres__yconv *y, const char *s, size_t n) {
    cres__writer w;
    char *at;
    cres__start(&w, NULL, 0, NULL);
    cres__put_json_string_n(&w, s, n);
    if (!(at = cres__yroom(y, w.len))) return;
    cres__start(&w, at, w.len, NULL);
    cres__put_json_string_n(&w, s, n);
    y->len += w.len;
}

/* What a plain scalar is under YAML 1.1's rules, as sigs.k8s.io/yaml reads it: "n" null,
   "b" a boolean (*truth set), "#" a number JSON can write as it is, else "s" a string. */
CRES__PRIVATE char cres__yaml_kind(const char *s, size_t n, int *truth) {
    static const char *const yes[] = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                      "True", "TRUE", "on",  "On",  "ON"};
    static const char *const no[] = {"n",     "N",     "no",  "No",  "NO", "false",
                                     "False", "FALSE", "off", "Off", "OFF"};
    cres__scan c;
    size_t i;
    if (n == 0 || (n == 1 && s[0] == '~') ||
        (n == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) || !memcmp(s, "NULL", 4))))
        return 'n';
    for (i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (strlen(yes[i]) == n && !memcmp(s, yes[i], n)) return *truth = 1, 'b';
        if (strlen(no[i]) == n && !memcmp(s, no[i], n)) return *truth = 0, 'b';
    }
    c.s = s, c.n = n, c.pos = 0, c.why = "";
    return cres__scan_number(&c) && c.pos == n ? '#' : 's';
}

/* A scalar as a JSON value; as a key it is always a string (true, 1 and null too, as
   sigs.k8s.io/yaml writes them). */
CRES__PRIVATE void cres__yaml_scalar(cres__yconv *y, const yaml_event_t *e, int key) {
    const char *s = (const char *)e->data.scalar.value;
    size_t n = e->data.scalar.length;
    const char *tag = (const char *)e->data.scalar.tag;
    int truth = 0;
    char kind = 's';
    if (e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && (!tag || strcmp(tag, "!") != 0) &&
        !(tag && strcmp(tag, YAML_STR_TAG) == 0))
        kind = cres__yaml_kind(s, n, &truth);
    if (key && kind == 'n')
        cres__yput_string(y, "null", 4);
    else if (key && kind == 'b')
        cres__yput_string(y, truth ? "true" : "false", truth ? 4 : 5);
    else if (key || kind == 's')
        cres__yput_string(y, s, n);
    else if (kind == 'n')
        cres__yput(y, "null", 4);
    else if (kind == 'b')
        cres__yput(y, truth ? "true" : "false", truth ? 4 : 5);
    else
        cres__yput(y, s, n);
}

/* Before a value or key inside the open collection: the comma, or the colon after a key. */
CRES__PRIVATE int cres__yaml_before(cres__yconv *y) {
    cres__yframe *f;
    if (y->depth == 0) return 0;
    f = &y->stack[y->depth - 1];
    if (f->items) cres__yput(y, f->mapping && f->items % 2 ? ":" : ",", 1);
    return f->mapping && f->items % 2 == 0; /* a key comes next */
}

CRES__PRIVATE void cres__yaml_after(cres__yconv *y) {
    if (y->depth) y->stack[y->depth - 1].items++;
}

/* Remembers where an anchored node's JSON text lies, for its aliases. */
CRES__PRIVATE void cres__yaml_anchor(cres__yconv *y, const yaml_char_t *name, size_t start) {
    cres__yanchor *an;
    if (!name || y->oom) return;
    if (!cres__grow(y->a, (void **)&y->anchors, &y->anchors_cap, sizeof *y->anchors,
                    y->anchors_count + 1) ||
        !(y->anchors[y->anchors_count].name = cres__strdup(y->a, (const char *)name))) {
        y->oom = 1;
        return;
    }
    an = &y->anchors[y->anchors_count++];
    an->start = start;
    an->end = y->len;
}

/* An alias: the anchored node's text again (the last anchor of that name before it). */
CRES__PRIVATE const char *cres__yaml_alias(cres__yconv *y, const yaml_event_t *e, int key) {
    size_t i = y->anchors_count, n;
    while (i-- > 0)
        if (strcmp(y->anchors[i].name, (const char *)e->data.alias.anchor) == 0) break;
    if (i == (size_t)-1) return "an alias names no anchor before it";
    if (key && y->out[y->anchors[i].start] != '"') return "an alias used as a key is no string";
    n = y->anchors[i].end - y->anchors[i].start;
    if (!cres__yroom(y, n)) return NULL; /* the copy's source is in the buffer: grow it first */
    memcpy(y->out + y->len, y->out + y->anchors[i].start, n);
    y->len += n;
    return NULL;
}

/* One event into JSON text; returns why it cannot be, or NULL. *done at the document's end. */
CRES__PRIVATE const char *cres__yaml_event(cres__yconv *y, const yaml_event_t *e, int *done) {
    int key;
    cres__yframe *f;
    const yaml_char_t *anchor;
    switch (e->type) {
    case YAML_DOCUMENT_END_EVENT:
    case YAML_STREAM_END_EVENT:
        *done = 1;
        return NULL;
    case YAML_SCALAR_EVENT:
        key = cres__yaml_before(y);
        if (key && e->data.scalar.length == 2 && !memcmp(e->data.scalar.value, "<<", 2) &&
            e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            return "merge keys (<<) are not supported";
        if (memchr(e->data.scalar.value, '\0', e->data.scalar.length))
            return "a string holds a NUL character"; /* "\0" in YAML; JSON would refuse it */
        {
            size_t start = y->len;
            cres__yaml_scalar(y, e, key);
            cres__yaml_anchor(y, e->data.scalar.anchor, start);
        }
        cres__yaml_after(y);
        return NULL;
    case YAML_ALIAS_EVENT: {
        const char *why;
        key = cres__yaml_before(y);
        if ((why = cres__yaml_alias(y, e, key)) != NULL) return why;
        cres__yaml_after(y);
        return NULL;
    }
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT:
        if (cres__yaml_before(y)) return "a key is a mapping or a list";
        if (y->depth == CRES_MAX_JSON_DEPTH) return "it is nested too deeply";
        f = &y->stack[y->depth++];
        f->mapping = e->type == YAML_MAPPING_START_EVENT;
        f->items = 0;
        f->start = y->len;
        f->anchor = NULL;
        anchor = f->mapping ? e->data.mapping_start.anchor : e->data.sequence_start.anchor;
        if (anchor && !(f->anchor = cres__strdup(y->a, (const char *)anchor)))
            y->oom = 1; /* not a lost anchor, whose aliases would then read as malformed */
        cres__yput(y, f->mapping ? "{" : "[", 1);
        return NULL;
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
        f = &y->stack[--y->depth];
        cres__yput(y, f->mapping ? "}" : "]", 1);
        if (f->anchor) {
            cres__yaml_anchor(y, (const yaml_char_t *)f->anchor, f->start);
            cres__free(y->a, f->anchor);
        }
        cres__yaml_after(y);
        return NULL;
    default:
        return NULL; /* stream and document starts */
    }
}

CRES__PRIVATE void cres__yconv_free(cres__yconv *y) {
    size_t i;
    for (i = 0; i < y->anchors_count; i++) cres__free(y->a, y->anchors[i].name);
    while (y->depth > 0) cres__free(y->a, y->stack[--y->depth].anchor);
    cres__free(y->a, y->anchors);
}

/* The first YAML document of text as JSON text in *out ("null" for an empty one). */
CRES__PRIVATE cres_result cres__yaml_to_json(const cres_allocator *a, const char *what,
                                             const char *text, size_t n, char **out,
                                             cres_error *err) {
    yaml_parser_t p;
    yaml_event_t e;
    cres__yconv y;
    const char *why = NULL;
    int done = 0;
    char line[48] = "";
    memset(&y, 0, sizeof y);
    y.a = a;
    *out = NULL;
    if (!yaml_parser_initialize(&p)) return cres__oom(err, what);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, n);
    while (!done && !why && !y.oom && !y.too_big) {
        if (!yaml_parser_parse(&p, &e)) {
            if (p.error == YAML_MEMORY_ERROR) y.oom = 1;
            why = p.problem ? p.problem : "not YAML";
            snprintf(line, sizeof line, " at line %lu", (unsigned long)p.problem_mark.line + 1);
            break;
        }
        why = cres__yaml_event(&y, &e, &done);
        if (why) snprintf(line, sizeof line, " at line %lu", (unsigned long)e.start_mark.line + 1);
        yaml_event_delete(&e);
    }
    yaml_parser_delete(&p);
    cres__yconv_free(&y);
    if (!y.oom && !why && !y.too_big && y.len == 0) cres__yput(&y, "null", 4);
    if (y.oom || y.too_big || why) {
        cres__free(a, y.out);
        if (y.oom) return cres__oom(err, what);
        if (y.too_big)
            return cres__fail(err, CRES_ERR_LIMIT, "%s: as JSON it is over %u bytes", what,
                              (unsigned)CRES_MAX_DOCUMENT_BYTES);
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: YAML%s: %s", what, line, why);
    }
    y.out[y.len] = '\0';
    *out = y.out;
    return CRES_OK;
}
#endif /* CLUSTER_RESOLVER_USE_YAML */

/* ---- the files ----------------------------------------------------------------------- */

typedef struct cres__kfile {
    char *path; /* as named */
    char *text; /* JSON */
    cres__json d;
} cres__kfile;

typedef struct cres__kload {
    cres__k8s *k;
    cres__kfile files[CRES_MAX_KUBECONFIG_FILES];
    size_t count;
    const char *origin; /* where the names came from, for messages and the log */
} cres__kload;

/* A stanza being read, and how messages name it: kubeconfig "F": user "alice". */
typedef struct cres__kstanza {
    cres__kload *L;
    const cres__kfile *f;
    int obj;          /* its object token, or -1 */
    const char *kind; /* "cluster", "user", "context" */
    const char *name;
    const char *prefix; /* before field names in messages: "exec." */
} cres__kstanza;

/* Owns p for the resolver's life (freed by cres__kube_free); NULL when p is NULL or the list
   cannot grow (p freed then). */
CRES__PRIVATE void *cres__kube_keep(cres__k8s *k, void *p) {
    const cres_allocator *a = &k->base.config.allocator;
    cres__kube *kube = &k->kube;
    if (!p) return NULL;
    if (!cres__grow(a, (void **)&kube->owned, &kube->owned_cap, sizeof *kube->owned,
                    kube->owned_count + 1)) {
        cres__free(a, p);
        return NULL;
    }
    return kube->owned[kube->owned_count++] = p;
}

CRES__PRIVATE void cres__kube_cred_free(const cres_allocator *a, cres__kube_cred *c) {
    cres__free(a, c->token);
    cres__free(a, c->cert_pem);
    cres__free(a, c->key_pem);
    memset(c, 0, sizeof *c);
}

CRES__PRIVATE void cres__kube_free(cres__k8s *k) {
    const cres_allocator *a = &k->base.config.allocator;
    size_t i;
    for (i = 0; i < k->kube.owned_count; i++) cres__free(a, k->kube.owned[i]);
    cres__free(a, k->kube.owned);
    cres__kube_cred_free(a, &k->kube.cred);
}

CRES__PRIVATE const char *cres__kwhere(const cres__kstanza *st, char *buf, size_t cap) {
    char q1[CRES__PATH_QUOTE_SIZE], q2[CRES__QUOTE_SIZE];
    snprintf(buf, cap, "kubeconfig %s: %s %s", cres__quote_str(q1, sizeof q1, st->f->path),
             st->kind, cres__quote_str(q2, sizeof q2, st->name));
    return buf;
}

/* CRES_ERR_ENVIRONMENT: kubernetes: kubeconfig "F": user "u": "field" <why>. */
CRES__PRIVATE cres_result cres__kfail(const cres__kstanza *st, const char *field, const char *why,
                                      cres_error *err) {
    char where[240];
    return cres__fail(err, CRES_ERR_ENVIRONMENT, "kubernetes: %s: \"%s%s\" %s",
                      cres__kwhere(st, where, sizeof where), st->prefix ? st->prefix : "", field,
                      why);
}

/* A string field of the stanza, kept; *out NULL when absent, null or "". */
CRES__PRIVATE cres_result cres__kstr(const cres__kstanza *st, const char *field, char **out,
                                     cres_error *err) {
    const cres__json *d = &st->f->d;
    int v, ok;
    *out = NULL;
    cres__json_pick(d, st->obj, &field, &v, 1);
    if (v < 0 || cres__json_is_null(d, v)) return CRES_OK;
    if (d->t[v].type != JSMN_STRING) return cres__kfail(st, field, "must be a string", err);
    if ((ok = cres__json_strdup(d, v, out)) == 0) return cres__oom(err, "kubernetes");
    if (ok < 0) return cres__kfail(st, field, "holds a NUL character", err);
    if (!**out) {
        cres__free(d->a, *out);
        *out = NULL;
        return CRES_OK;
    }
    return cres__kube_keep(st->L->k, *out) ? CRES_OK : cres__oom(err, "kubernetes");
}

/* A boolean field: 0 when absent or null. */
CRES__PRIVATE cres_result cres__kbool(const cres__kstanza *st, const char *field, int *out,
                                      cres_error *err) {
    const cres__json *d = &st->f->d;
    int v;
    *out = 0;
    cres__json_pick(d, st->obj, &field, &v, 1);
    if (v < 0 || cres__json_is_null(d, v)) return CRES_OK;
    if (d->t[v].type != JSMN_PRIMITIVE ||
        (d->s[d->t[v].start] != 't' && d->s[d->t[v].start] != 'f'))
        return cres__kfail(st, field, "must be true or false", err);
    *out = d->s[d->t[v].start] == 't';
    return CRES_OK;
}

/* A path of the stanza made absolute against its file's directory, kept. */
CRES__PRIVATE cres_result cres__kpath(const cres__kstanza *st, const char *path, char **out,
                                      cres_error *err) {
    const char *file = st->f->path, *slash = strrchr(file, '/');
    size_t dir = slash ? (size_t)(slash - file) + 1 : 0, n = strlen(path);
    int absolute = path[0] == '/';
#ifdef _WIN32
    absolute = absolute || path[0] == '\\' || (n > 1 && path[1] == ':');
    if (!slash && (slash = strrchr(file, '\\')) != NULL) dir = (size_t)(slash - file) + 1;
#endif
    if (absolute) dir = 0;
    *out = (char *)cres__alloc(&st->L->k->base.config.allocator, dir + n + 1);
    if (!*out) return cres__oom(err, "kubernetes");
    memcpy(*out, file, dir);
    memcpy(*out + dir, path, n + 1);
    return cres__kube_keep(st->L->k, *out) ? CRES_OK : cres__oom(err, "kubernetes");
}

/* A file that field names and that could not be read (res: how it failed). */
CRES__PRIVATE cres_result cres__kunreadable(const cres__kstanza *st, const char *field,
                                            const char *path, cres_result res, cres_error *err) {
    char why[200], q[CRES__PATH_QUOTE_SIZE];
    if (res == CRES_ERR_OUT_OF_MEMORY) return res;
    snprintf(why, sizeof why, "names %s, which cannot be read%s",
             cres__quote_str(q, sizeof q, path), res == CRES_ERR_LIMIT ? " (too large)" : "");
    return cres__kfail(st, field, why, err);
}

/* ---- PEM, as client-go reads it at load ------------------------------------------------ */

enum { CRES__PEM_CA, CRES__PEM_CERT, CRES__PEM_KEY }; /* what a PEM field holds */

/* One block of PEM text, as Go's pem.Decode returns it. */
typedef struct cres__pem_block {
    const char *start, *stop; /* its BEGIN line; after its END line */
    const char *type;
    size_t type_len;
    int headers; /* "Key: value" lines before the body */
    int whole;   /* the body is one DER SEQUENCE filling it: a certificate or key not cut short */
} cres__pem_block;

/* A PEM body [s, end) as Go decodes it (blanks and line breaks skipped, padding required):
   0 not base64, 1 base64, 2 base64 of one DER SEQUENCE whose length is exactly the rest. */
CRES__PRIVATE int cres__pem_body(const char *s, const char *end) {
    unsigned char der[6];
    unsigned long acc = 0, len = 0;
    size_t got = 0, quad = 0, pad = 0, i, k;
    for (; s < end; s++) {
        const char *at = *s ? strchr(cres__b64, *s) : NULL;
        if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') continue;
        if (*s == '=' ? quad < 2 : !at || pad) return 0; /* "=" too early, or data after it */
        pad += *s == '=';
        acc = (acc << 6) | (unsigned long)(at ? at - cres__b64 : 0);
        if (++quad < 4) continue;
        for (i = 0; i < 3 - pad; i++, got++)
            if (got < sizeof der) der[got] = (unsigned char)(acc >> (16 - 8 * i));
        quad = 0, acc = 0;
    }
    if (quad) return 0;
    if (got < 2 || der[0] != 0x30) return 1;
    if (der[1] < 0x80) return got == 2u + der[1] ? 2 : 1;
    k = der[1] & 0x7fu; /* the long form: k bytes of length follow */
    if (k == 0 || k > 4 || got < 2 + k) return 1;
    for (i = 0; i < k; i++) len = (len << 8) | der[2 + i];
    return len == got - 2 - k ? 2 : 1;
}

/* The line after the one s is in ("" at the end). */
CRES__PRIVATE const char *cres__next_line(const char *s) {
    s += strcspn(s, "\n");
    return s + (*s == '\n');
}

/* The first line from the one at s on that starts with `prefix`, or NULL (line by line, not
   strstr: sanitizers measure the whole rest of the text at every strstr). */
CRES__PRIVATE const char *cres__pem_line(const char *s, const char *prefix) {
    for (; *s; s = cres__next_line(s))
        if (strncmp(s, prefix, strlen(prefix)) == 0) return s;
    return NULL;
}

/* A walk over PEM text. Its memos keep it linear where blocks fail inside one another
   (many BEGIN lines before one END): the end of the last header lines scanned, the next END
   line after them, the body last decoded and what it gave. */
typedef struct cres__pem_walk {
    const char *at, *run, *ends, *body, *end;
    int got;
} cres__pem_walk;

/* The next PEM block, as Go's pem.Decode finds it: "-----BEGIN T-----" at a line's start,
   header lines, the body, "-----END T-----" at a line's start and alone on it; a block whose
   end is missing or whose body is not base64 is skipped, and the search goes on after its
   BEGIN line. 0 when none is left. */
CRES__PRIVATE int cres__pem_next(cres__pem_walk *w, cres__pem_block *b) {
    const char *p, *line, *end, *tail;
    size_t n;
    for (p = w->at; (p = cres__pem_line(p, "-----BEGIN ")) != NULL; p = line) {
        b->type = p + 11;
        n = strcspn(b->type, "\n");
        line = cres__next_line(p);
        while (n && (b->type[n - 1] == ' ' || b->type[n - 1] == '\t' || b->type[n - 1] == '\r'))
            n--;
        if (n < 5 || strncmp(b->type + n - 5, "-----", 5) != 0) continue;
        b->type_len = n - 5;
        if (!w->run || line > w->run) /* header lines hold a colon, which base64 does not */
            for (w->run = line; memchr(w->run, ':', strcspn(w->run, "\n"));)
                w->run = cres__next_line(w->run);
        b->headers = line < w->run;
        end = w->run;
        if (b->headers || strncmp(end, "-----END ", 9) != 0) {
            if (!w->ends || w->ends <= w->run)
                w->ends = cres__pem_line(cres__next_line(w->run), "-----END ");
            if (!(end = w->ends)) return 0; /* nothing after here can end a block */
        }
        if (strncmp(end + 9, b->type, b->type_len) != 0) continue;
        tail = end + 9 + b->type_len;
        if (strncmp(tail, "-----", 5) != 0) continue;
        for (tail += 5; *tail == ' ' || *tail == '\t' || *tail == '\r';) tail++;
        if (*tail && *tail != '\n') continue;
        if (w->body != w->run || w->end != end)
            w->body = w->run, w->end = end, w->got = cres__pem_body(w->run, end);
        if (!w->got) continue;
        b->whole = w->got == 2;
        b->start = p;
        b->stop = w->at = cres__next_line(end);
        return 1;
    }
    return 0;
}

/* What client-go finds in PEM text for a CA, client certificate or key: 0 what it needs, 1
   no block of the type, 2 only a malformed one. A CA needs some CERTIFICATE block without
   headers that is whole (Go's x509.CertPool.AppendCertsFromPEM), and the CA's usable blocks
   go to `usable` when it is not NULL (room for the text); a client certificate needs its
   first CERTIFICATE block whole, a key its first block typed PRIVATE KEY or "<algorithm>
   PRIVATE KEY" (tls.X509KeyPair). Whole is the outer DER shape only: the TLS library parses
   the rest (and matches the key to the certificate) at the first request. */
CRES__PRIVATE int cres__pem_check(const char *text, int what, char *usable) {
    const char *want = what == CRES__PEM_KEY ? "PRIVATE KEY" : "CERTIFICATE"; /* both 11 long */
    cres__pem_walk w;
    cres__pem_block b;
    int seen = 0, found = 0;
    memset(&w, 0, sizeof w);
    w.at = text;
    if (usable) *usable = '\0';
    while (cres__pem_next(&w, &b)) {
        size_t n = b.type_len;
        if (n < 11 || memcmp(b.type + n - 11, want, 11) != 0 ||
            (n > 11 && (what != CRES__PEM_KEY || b.type[n - 12] != ' ')))
            continue;
        if (what != CRES__PEM_CA) return b.whole ? 0 : 2;
        seen = 1;
        if (!b.whole || b.headers) continue;
        found = 1;
        if (usable) {
            memcpy(usable, b.start, (size_t)(b.stop - b.start));
            *(usable += b.stop - b.start) = '\0';
        }
    }
    return found ? 0 : seen ? 2 : 1;
}

/* PEM material from field (a path) or field-data (base64), never both; *out NULL when
   neither. Read and checked now, as client-go does (a file it cannot read or PEM it cannot
   use is an error). Of a CA only the blocks client-go uses are kept: a TLS library refuses a
   whole bundle for one block it cannot read, where client-go skips that block. An empty CA
   file is kept as "": no CA of its own, as client-go has none. */
CRES__PRIVATE cres_result cres__kpem(const cres__kstanza *st, const char *field, int what,
                                     char **out, cres_error *err) {
    const cres_allocator *a = &st->L->k->base.config.allocator;
    char data_field[48], *path, *data, *text, *usable, why[CRES__PATH_QUOTE_SIZE + 64],
        q[CRES__PATH_QUOTE_SIZE];
    cres_result res;
    int ok;
    *out = NULL;
    snprintf(data_field, sizeof data_field, "%s-data", field);
    if ((res = cres__kstr(st, field, &path, err)) != CRES_OK ||
        (res = cres__kstr(st, data_field, &data, err)) != CRES_OK)
        return res;
    if (path && data) {
        snprintf(why, sizeof why, "and \"%s\" are both set; set one", data_field);
        return cres__kfail(st, field, why, err);
    }
    if (data) {
        ok = cres__base64_decode(a, data, strlen(data), &text);
        if (ok == 0) return cres__oom(err, "kubernetes");
        if (ok < 0) return cres__kfail(st, data_field, "is not base64 of PEM text", err);
    } else if (path) {
        if ((res = cres__kpath(st, path, &path, err)) != CRES_OK) return res;
        res = cres__read_file(&st->L->k->base, path, 1024 * 1024, 0, &text, err); /* as it is */
        if (res != CRES_OK) return cres__kunreadable(st, field, path, res, err);
    } else {
        return CRES_OK;
    }
    ok = 0;
    if (what != CRES__PEM_CA) {
        ok = cres__pem_check(text, what, NULL);
    } else if (*text) {
        usable = (char *)cres__alloc(a, strlen(text) + 1);
        if (usable) ok = cres__pem_check(text, what, usable);
        cres__free(a, text);
        if (!(text = usable)) return cres__oom(err, "kubernetes");
    }
    if (!cres__kube_keep(st->L->k, text)) return cres__oom(err, "kubernetes");
    *out = text;
    if (ok == 0) return CRES_OK;
    snprintf(why, sizeof why, "%s %s PEM %s block%s%s", data ? "holds" : "names a file with",
             ok == 1 ? "no" : "a malformed", what == CRES__PEM_KEY ? "PRIVATE KEY" : "CERTIFICATE",
             data ? "" : ": ", data ? "" : cres__quote_str(q, sizeof q, path));
    return cres__kfail(st, data ? data_field : field, why, err);
}

/* Reads and parses one file into L->files; *found 0 when it does not exist (skipped in a
   $KUBECONFIG list). */
CRES__PRIVATE cres_result cres__kube_read(cres__kload *L, const char *path, size_t n,
                                          int must_exist, cres_error *err) {
    const cres_allocator *a = &L->k->base.config.allocator;
    cres__kfile *f = &L->files[L->count];
    char q[CRES__PATH_QUOTE_SIZE], what[200];
    size_t i;
    cres_result res;
    for (i = 0; i < L->count; i++) /* a name twice in $KUBECONFIG counts once */
        if (strlen(L->files[i].path) == n && memcmp(L->files[i].path, path, n) == 0) return CRES_OK;
    memset(f, 0, sizeof *f);
    if (!(f->path = cres__strndup(a, path, n))) return cres__oom(err, "kubernetes");
    snprintf(what, sizeof what, "kubernetes: kubeconfig %s", cres__quote_str(q, sizeof q, f->path));
    res = cres__read_small_file(&L->k->base, f->path, CRES_MAX_DOCUMENT_BYTES, &f->text, err);
    if (res == CRES_ERR_ENVIRONMENT && !must_exist) {
        FILE *probe = fopen(f->path, "rb"); /* missing: skipped; there but unreadable: not */
        if (!probe) {
            cres__free(a, f->path);
            return CRES_OK;
        }
        fclose(probe);
    }
    L->count++;
    if (res == CRES_ERR_ENVIRONMENT)
        return cres__fail(err, res, "%s cannot be read%s", what,
                          must_exist ? " (named by options.kubeconfig / --kubeconfig)" : "");
    if (res != CRES_OK) return res;
    i = strspn(f->text, cres__kblanks);
    if (f->text[i] != '{' && f->text[i] != '\0') { /* YAML, unless empty */
#ifdef CLUSTER_RESOLVER_USE_YAML
        char *json;
        if ((res = cres__yaml_to_json(a, what, f->text, strlen(f->text), &json, err)) != CRES_OK)
            return res;
        cres__free(a, f->text);
        f->text = json;
#else
        return cres__fail(err, CRES_ERR_UNSUPPORTED,
                          "%s is YAML: build with CLUSTER_RESOLVER_USE_YAML (-lyaml), or convert "
                          "it: kubectl config view --raw --minify --flatten -o json",
                          what);
#endif
    }
    if (!f->text[strspn(f->text, cres__kblanks)] || strcmp(f->text, "null") == 0)
        return CRES_OK; /* empty (a YAML file of comments is null): an empty config */
    res = cres__json_parse_document(&f->d, f->text, strlen(f->text), a, what, CRES_ERR_ENVIRONMENT,
                                    err);
    if (res == CRES_OK && !cres__json_is(&f->d, 0, JSMN_OBJECT) && !cres__json_is_null(&f->d, 0))
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "%s is not a mapping", what);
    return res;
}

/* Which files: options.kubeconfig alone, else $KUBECONFIG's names, else ~/.kube/config. */
CRES__PRIVATE cres_result cres__kube_files(cres__kload *L, const char *explicit_file,
                                           cres_error *err) {
    const cres_resolver *r = &L->k->base;
    const char *list = cres_resolver_getenv(r, "KUBECONFIG"), *home, *p;
    char path[4096];
#ifdef _WIN32
    const char sep = ';';
#else
    const char sep = ':';
#endif
    cres_result res = CRES_OK;
    if (explicit_file) {
        L->origin = "options.kubeconfig";
        return cres__kube_read(L, explicit_file, strlen(explicit_file), 1, err);
    }
    if (list && *list) {
        L->origin = "$KUBECONFIG";
        for (p = list; res == CRES_OK && *p;) {
            size_t n = strcspn(p, sep == ':' ? ":" : ";");
            if (n && L->count == CRES_MAX_KUBECONFIG_FILES)
                return cres__fail(err, CRES_ERR_LIMIT,
                                  "kubernetes: $KUBECONFIG names more than "
                                  "%d files",
                                  CRES_MAX_KUBECONFIG_FILES);
            if (n) res = cres__kube_read(L, p, n, 0, err); /* empty names: skipped */
            p += n + (p[n] == sep);
        }
        return res;
    }
    home = cres_resolver_getenv(r, cres__khome_var);
#ifdef _WIN32
    if (!home || !*home) home = cres_resolver_getenv(r, "USERPROFILE");
#endif
    L->origin = "~/.kube/config";
    if (!home || !*home || strlen(home) > sizeof path - 16) return CRES_OK;
    snprintf(path, sizeof path, "%s/.kube/config", home);
    return cres__kube_read(L, path, strlen(path), 0, err);
}

/* A name in a list, as its JSON text (a name given twice is the same text). */
typedef struct cres__kname {
    const char *s;
    size_t n;
} cres__kname;

CRES__PRIVATE int cres__cmp_kname(const void *x, const void *y) {
    const cres__kname *a = (const cres__kname *)x, *b = (const cres__kname *)y;
    int c = memcmp(a->s, b->s, a->n < b->n ? a->n : b->n);
    return c ? c : (a->n > b->n) - (a->n < b->n);
}

/* One list of one file: a list (or null) of mappings whose "name" is a string, no name twice
   (sorted, so a file of many entries costs n log n, not n^2). */
CRES__PRIVATE cres_result cres__kube_check_list(const cres__kfile *f, const char *list, int at,
                                                cres_error *err) {
    static const char *const key[] = {"name"};
    const cres__json *d = &f->d;
    char q[CRES__PATH_QUOTE_SIZE], n1[CRES__QUOTE_SIZE];
    cres__kname *names;
    int i, item, name, n;
    cres_result res = CRES_OK;
    cres__quote_str(q, sizeof q, f->path);
    if (at < 0 || cres__json_is_null(d, at)) return CRES_OK;
    if (d->t[at].type != JSMN_ARRAY)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "kubernetes: kubeconfig %s: \"%s\" must be a list", q, list);
    if ((n = d->t[at].size) == 0) return CRES_OK;
    if (!(names = (cres__kname *)cres__alloc(d->a, (size_t)n * sizeof *names)))
        return cres__oom(err, "kubernetes");
    for (i = 0, item = at + 1; i < n && res == CRES_OK; i++, item = cres__json_next(d, item)) {
        cres__json_pick(d, item, key, &name, 1);
        if (name < 0 || d->t[name].type != JSMN_STRING)
            res =
                cres__fail(err, CRES_ERR_ENVIRONMENT,
                           "kubernetes: kubeconfig %s: %s[%d] has no \"name\" string", q, list, i);
        else
            names[i].s = d->s + d->t[name].start,
            names[i].n = (size_t)(d->t[name].end - d->t[name].start);
    }
    if (res == CRES_OK) qsort(names, (size_t)n, sizeof *names, cres__cmp_kname);
    for (i = 1; i < n && res == CRES_OK; i++)
        if (cres__cmp_kname(&names[i - 1], &names[i]) == 0)
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "kubernetes: kubeconfig %s: %s names %s twice", q, list,
                             cres__quote(n1, sizeof n1, names[i].s, names[i].n));
    cres__free(d->a, names);
    return res;
}

/* Checks the named lists of every file, as client-go decodes each whole: "clusters",
   "users" and "contexts" are lists (or null) of mappings whose "name" is a string, no name
   twice in one file. */
CRES__PRIVATE cres_result cres__kube_check(cres__kload *L, cres_error *err) {
    static const char *const lists[] = {"clusters", "users", "contexts"};
    size_t f, l;
    cres_result res;
    for (f = 0; f < L->count; f++) {
        int at[3];
        if (!cres__json_is(&L->files[f].d, 0, JSMN_OBJECT)) continue;
        cres__json_pick(&L->files[f].d, 0, lists, at, 3);
        for (l = 0; l < 3; l++)
            if ((res = cres__kube_check_list(&L->files[f], lists[l], at[l], err)) != CRES_OK)
                return res;
    }
    return CRES_OK;
}

/* The stanza named `name` in list `list` ("clusters") under `inner` ("cluster"), from the
   first file that names it; st->f NULL when none does. */
CRES__PRIVATE void cres__kube_find(cres__kload *L, const char *list, const char *inner,
                                   const char *name, cres__kstanza *st) {
    const char *keys[2];
    size_t f;
    keys[0] = "name", keys[1] = inner;
    memset(st, 0, sizeof *st);
    st->L = L;
    st->kind = inner;
    st->name = name;
    st->obj = -1;
    for (f = 0; f < L->count; f++) {
        const cres__json *d = &L->files[f].d;
        int at, i, item, v[2];
        cres__json_pick(d, 0, &list, &at, 1);
        if (!cres__json_is(d, at, JSMN_ARRAY)) continue;
        for (i = 0, item = at + 1; i < d->t[at].size; i++, item = cres__json_next(d, item)) {
            cres__json_pick(d, item, keys, v, 2);
            if (v[0] < 0 || !cres__json_eq(d, v[0], name)) continue;
            st->f = &L->files[f];
            st->obj = v[1]; /* absent or null: an empty stanza */
            return;
        }
    }
}

/* The current-context of the first file that sets it (not ""), or NULL. */
CRES__PRIVATE cres_result cres__kube_current(cres__kload *L, char **out, size_t *file,
                                             cres_error *err) {
    size_t f;
    cres_result res;
    *out = NULL;
    for (f = 0; f < L->count; f++) {
        cres__kstanza st;
        memset(&st, 0, sizeof st);
        st.L = L, st.f = &L->files[f], st.obj = 0, st.kind = "file", st.name = "";
        if (!cres__json_is(&st.f->d, 0, JSMN_OBJECT)) continue;
        if ((res = cres__kstr(&st, "current-context", out, err)) != CRES_OK) {
            char q[CRES__PATH_QUOTE_SIZE];
            if (res == CRES_ERR_OUT_OF_MEMORY) return res;
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "kubernetes: kubeconfig %s: \"current-context\" must be a string",
                              cres__quote_str(q, sizeof q, st.f->path));
        }
        if (*out) {
            *file = f;
            return CRES_OK;
        }
    }
    return CRES_OK;
}

CRES__PRIVATE void cres__kload_free(cres__kload *L) {
    const cres_allocator *a = &L->k->base.config.allocator;
    size_t f;
    for (f = 0; f < L->count; f++) {
        cres__json_free(&L->files[f].d);
        cres__free(a, L->files[f].text);
        cres__free(a, L->files[f].path);
    }
}

/* ---- the stanzas ----------------------------------------------------------------------- */

/* The cluster: server, CA, TLS server name, proxy, insecure flag, the exec extension. */
CRES__PRIVATE cres_result cres__kube_cluster(cres__kstanza *st, char **server, cres_error *err) {
    static const char *const ext_keys[] = {"name", "extension"};
    cres__kube *kube = &st->L->k->kube;
    const cres__json *d = &st->f->d;
    char *ca = NULL, *name = NULL, *proxy = NULL;
    int insecure = 0, ext, i, item, v[2];
    const char *ext_key = "extensions";
    cres_result res;
    if ((res = cres__kstr(st, "server", server, err)) != CRES_OK ||
        (res = cres__kpem(st, "certificate-authority", CRES__PEM_CA, &ca, err)) != CRES_OK ||
        (res = cres__kbool(st, "insecure-skip-tls-verify", &insecure, err)) != CRES_OK ||
        (res = cres__kstr(st, "tls-server-name", &name, err)) != CRES_OK ||
        (res = cres__kstr(st, "proxy-url", &proxy, err)) != CRES_OK)
        return res;
    if (!*server)
        return cres__kfail(st, "server", "is not set (kubectl would try http://localhost:8080)",
                           err);
    if (insecure && ca)
        return cres__kfail(st, "insecure-skip-tls-verify",
                           "is set together with a certificate authority: set one", err);
    if (proxy && strncmp(proxy, "http://", 7) != 0 && strncmp(proxy, "https://", 8) != 0 &&
        strncmp(proxy, "socks5://", 9) != 0)
        return cres__kfail(st, "proxy-url", "must start with http://, https:// or socks5://", err);
    kube->tls.ca_pem = ca && *ca ? ca : NULL; /* an empty file: the system's CAs */
    kube->tls.insecure_skip_verify = insecure;
    kube->tls.server_name = name;
    kube->tls.proxy = proxy;
    cres__json_pick(d, st->obj, &ext_key, &ext, 1);
    for (i = 0, item = ext + 1; cres__json_is(d, ext, JSMN_ARRAY) && i < d->t[ext].size;
         i++, item = cres__json_next(d, item)) { /* spec.cluster.config for exec plugins */
        cres__json_pick(d, item, ext_keys, v, 2);
        if (v[0] >= 0 && v[1] >= 0 && cres__json_eq(d, v[0], "client.authentication.k8s.io/exec") &&
            !(kube->exec_config = (char *)cres__kube_keep(
                  st->L->k, cres__strndup(d->a, d->s + d->t[v[1]].start,
                                          (size_t)(d->t[v[1]].end - d->t[v[1]].start)))))
            return cres__oom(err, "kubernetes");
    }
    if (insecure)
        cres__log(&st->L->k->base, CRES_LOG_WARN,
                  "kubernetes: cluster \"%s\": insecure-skip-tls-verify: the server's certificate "
                  "is not checked",
                  st->name);
    return CRES_OK;
}

/* A list of strings (args, as-groups) as a kept, NULL-ended array, with room for `before`
   entries ahead of it; *count its length. */
CRES__PRIVATE cres_result cres__kstrings(cres__kstanza *st, const char *field, size_t before,
                                         char ***out, size_t *count, cres_error *err) {
    const cres__json *d = &st->f->d;
    int v, i, item, ok;
    size_t n;
    *out = NULL;
    *count = 0;
    cres__json_pick(d, st->obj, &field, &v, 1);
    if (v >= 0 && !cres__json_is_null(d, v) && d->t[v].type != JSMN_ARRAY)
        return cres__kfail(st, field, "must be a list of strings", err);
    n = v >= 0 && d->t[v].type == JSMN_ARRAY ? (size_t)d->t[v].size : 0;
    *out = (char **)cres__kube_keep(st->L->k, cres__alloc(d->a, (before + n + 1) * sizeof **out));
    if (!*out) return cres__oom(err, "kubernetes");
    memset(*out, 0, (before + n + 1) * sizeof **out);
    for (i = 0, item = v + 1; (size_t)i < n; i++, item = cres__json_next(d, item)) {
        char **slot = &(*out)[before + (size_t)i];
        if (d->t[item].type != JSMN_STRING)
            return cres__kfail(st, field, "must be a list of strings", err);
        if ((ok = cres__json_strdup(d, item, slot)) == 0 || !cres__kube_keep(st->L->k, *slot))
            return cres__oom(err, "kubernetes");
        if (ok < 0) return cres__kfail(st, field, "holds a NUL character", err);
    }
    *count = n;
    return CRES_OK;
}

/* exec.env: [{name, value}] as "NAME=VALUE" strings. */
CRES__PRIVATE cres_result cres__kube_exec_env(cres__kstanza *st, cres_error *err) {
    static const char *const keys[] = {"name", "value"};
    cres__kube *kube = &st->L->k->kube;
    const cres__json *d = &st->f->d;
    const char *field = "env";
    int v, i, item, nv[2];
    size_t n;
    cres__json_pick(d, st->obj, &field, &v, 1);
    if (v >= 0 && !cres__json_is_null(d, v) && d->t[v].type != JSMN_ARRAY)
        return cres__kfail(st, "env", "must be a list of {name, value}", err);
    n = v >= 0 && d->t[v].type == JSMN_ARRAY ? (size_t)d->t[v].size : 0;
    kube->exec_env =
        (char **)cres__kube_keep(st->L->k, cres__alloc(d->a, (n + 1) * sizeof(char *)));
    if (!kube->exec_env) return cres__oom(err, "kubernetes");
    memset(kube->exec_env, 0, (n + 1) * sizeof(char *));
    for (i = 0, item = v + 1; (size_t)i < n; i++, item = cres__json_next(d, item)) {
        char *name = NULL, *value = NULL, *both;
        int ok1, ok2, bad;
        cres__json_pick(d, item, keys, nv, 2);
        if (nv[0] < 0 || nv[1] < 0 || d->t[nv[0]].type != JSMN_STRING ||
            d->t[nv[1]].type != JSMN_STRING)
            return cres__kfail(st, "env", "must be a list of {name, value} strings", err);
        ok1 = cres__json_strdup(d, nv[0], &name);
        ok2 = ok1 == 1 ? cres__json_strdup(d, nv[1], &value) : 0;
        both = ok1 == 1 && ok2 == 1 ? (char *)cres__alloc(d->a, strlen(name) + strlen(value) + 2)
                                    : NULL;
        if (both) snprintf(both, strlen(name) + strlen(value) + 2, "%s=%s", name, value);
        bad = ok1 < 0 || ok2 < 0 || (name && (!*name || strchr(name, '=')));
        cres__free(d->a, name);
        cres__free(d->a, value);
        if (bad) {
            cres__free(d->a, both);
            return cres__kfail(st, "env", "has a name that is empty or holds '=' or NUL", err);
        }
        if (!both || !cres__kube_keep(st->L->k, both)) return cres__oom(err, "kubernetes");
        kube->exec_env[i] = both;
    }
    return CRES_OK;
}

/* The exec stanza of a user, checked as client-go checks it. */
CRES__PRIVATE cres_result cres__kube_exec(cres__kstanza *user, int obj, cres_error *err) {
    cres__kube *kube = &user->L->k->kube;
    cres__kstanza st = *user;
    char *command, *api, *mode, *hint, **argv;
    size_t count;
    int provide;
    cres_result res;
    st.obj = obj;
    st.prefix = "exec.";
    if ((res = cres__kstr(&st, "command", &command, err)) != CRES_OK ||
        (res = cres__kstr(&st, "apiVersion", &api, err)) != CRES_OK ||
        (res = cres__kstr(&st, "interactiveMode", &mode, err)) != CRES_OK ||
        (res = cres__kstr(&st, "installHint", &hint, err)) != CRES_OK ||
        (res = cres__kbool(&st, "provideClusterInfo", &provide, err)) != CRES_OK ||
        (res = cres__kstrings(&st, "args", 1, &argv, &count, err)) != CRES_OK ||
        (res = cres__kube_exec_env(&st, err)) != CRES_OK)
        return res;
    if (!command) return cres__kfail(&st, "command", "is not set", err);
    if (!api) return cres__kfail(&st, "apiVersion", "is not set", err);
    if (strcmp(api, CRES__EXEC_V1) != 0 && strcmp(api, CRES__EXEC_V1BETA1) != 0)
        return cres__kfail(&st, "apiVersion",
                           "must be " CRES__EXEC_V1 " or " CRES__EXEC_V1BETA1
                           " (v1alpha1 is no longer served)",
                           err);
    if (!mode && strcmp(api, CRES__EXEC_V1) == 0)
        return cres__kfail(&st, "interactiveMode", "is not set (required by v1)", err);
    if (mode && strcmp(mode, "Never") != 0 && strcmp(mode, "IfAvailable") != 0) {
        if (strcmp(mode, "Always") == 0)
            return cres__kfail(&st, "interactiveMode",
                               "is Always, but the library gives a plugin no terminal", err);
        return cres__kfail(&st, "interactiveMode", "must be Never, IfAvailable or Always", err);
    }
    if (strchr(command, '/') && (res = cres__kpath(&st, command, &command, err)) != CRES_OK)
        return res;
    argv[0] = command;
    kube->exec_argv = argv;
    kube->exec_api = api;
    kube->exec_hint = hint;
    kube->exec_provide = provide;
    return CRES_OK;
}

/* auth-provider: oidc's id-token is a bearer token; gcp and azure are gone from kubectl. */
CRES__PRIVATE cres_result cres__kube_provider(cres__kstanza *user, int obj, char **token,
                                              cres_error *err) {
    static const char *const config_key[] = {"config"};
    cres__kstanza st = *user;
    char *name;
    int cfg;
    cres_result res;
    st.obj = obj;
    st.prefix = "auth-provider.";
    if ((res = cres__kstr(&st, "name", &name, err)) != CRES_OK) return res;
    if (!name) return cres__kfail(&st, "name", "is not set", err);
    if (strcmp(name, "gcp") == 0)
        return cres__kfail(&st, "name",
                           "is gcp, removed in Kubernetes 1.26: install "
                           "gke-gcloud-auth-plugin and run gcloud container clusters "
                           "get-credentials again",
                           err);
    if (strcmp(name, "azure") == 0)
        return cres__kfail(&st, "name",
                           "is azure, removed in Kubernetes 1.26: use kubelogin "
                           "(kubelogin convert-kubeconfig)",
                           err);
    if (strcmp(name, "oidc") != 0)
        return cres__kfail(&st, "name",
                           "names a provider the library does not know (oidc "
                           "only; use an exec plugin)",
                           err);
    cres__json_pick(&st.f->d, obj, config_key, &cfg, 1);
    st.obj = cfg;
    st.prefix = "auth-provider.config.";
    if ((res = cres__kstr(&st, "id-token", token, err)) != CRES_OK) return res;
    return *token ? CRES_OK
                  : cres__kfail(&st, "id-token",
                                "is not set (the library does not refresh "
                                "OIDC tokens: use kubelogin as an exec plugin)",
                                err);
}

/* "Basic base64(user:pass)" (RFC 7617), from "user:pass". */
CRES__PRIVATE void cres__put_basic_auth(cres__writer *w, const void *x) {
    const char *plain = (const char *)x;
    cres__puts(w, "Basic ");
    cres__put_base64(w, plain, strlen(plain));
}

/* A named constant, not a literal in cres__kube_user: GCC may put the literals of a function
   in one section with strings that code of every backend uses, which the linker then keeps
   in programs without Kubernetes; a named constant has a section of its own. */
CRES__BYTE_ALIGNED static const char cres__kube_no_as[] =
    "is set without \"as\": groups, uid and user-extra need a user to impersonate";

/* The user: its credentials, checked as client-go checks them; *kind says which. */
CRES__PRIVATE cres_result cres__kube_user(cres__kstanza *st, const char **kind, cres_error *err) {
    static const char *const keys[] = {"exec", "auth-provider", "as-user-extra"};
    cres__k8s *k = st->L->k;
    cres__kube *kube = &k->kube;
    const cres__json *d = &st->f->d;
    char *token, *file, *cert, *key, *user, *pass, *oidc = NULL;
    int at[3], extra;
    size_t groups;
    cres_result res;
    if ((res = cres__kstr(st, "token", &token, err)) != CRES_OK ||
        (res = cres__kstr(st, "tokenFile", &file, err)) != CRES_OK ||
        (res = cres__kpem(st, "client-certificate", CRES__PEM_CERT, &cert, err)) != CRES_OK ||
        (res = cres__kpem(st, "client-key", CRES__PEM_KEY, &key, err)) != CRES_OK ||
        (res = cres__kstr(st, "username", &user, err)) != CRES_OK ||
        (res = cres__kstr(st, "password", &pass, err)) != CRES_OK ||
        (res = cres__kstr(st, "as", (char **)&kube->as_user, err)) != CRES_OK ||
        (res = cres__kstr(st, "as-uid", (char **)&kube->as_uid, err)) != CRES_OK ||
        (res = cres__kstrings(st, "as-groups", 0, &kube->as_groups, &groups, err)) != CRES_OK)
        return res;
    kube->as_groups_count = groups;
    cres__json_pick(d, st->obj, keys, at, 3);
    extra = at[2] >= 0 && d->t[at[2]].type == JSMN_OBJECT && d->t[at[2]].size > 0;
    if (!kube->as_user && (groups || kube->as_uid || extra)) /* client-go refuses them too */
        return cres__kfail(st, groups ? "as-groups" : kube->as_uid ? "as-uid" : "as-user-extra",
                           cres__kube_no_as, err);
    if (extra) return cres__kfail(st, "as-user-extra", "is not supported by the library", err);
    if (cert && !key)
        return cres__kfail(st, "client-certificate", "is set, client-key is not", err);
    if (key && !cert)
        return cres__kfail(st, "client-key", "is set, client-certificate is not", err);
    if ((token || file) && (user || pass))
        return cres__kfail(st, token ? "token" : "tokenFile",
                           "and username/password are both set: one authentication method", err);
    if (at[0] >= 0 && cres__json_is_null(d, at[0])) at[0] = -1;
    if (at[1] >= 0 && cres__json_is_null(d, at[1])) at[1] = -1;
    if (at[0] >= 0 && at[1] >= 0)
        return cres__kfail(st, "exec", "and auth-provider are both set: one authentication method",
                           err);
    if ((at[0] >= 0 || at[1] >= 0) && (token || file || user || pass || cert))
        return cres__kfail(st, at[0] >= 0 ? "exec" : "auth-provider",
                           "is set with a token, password or certificate: one authentication "
                           "method",
                           err);
    if (at[0] >= 0 && (res = cres__kube_exec(st, at[0], err)) != CRES_OK) return res;
    if (at[0] >= 0) { /* plugin failures at resolve name where it came from */
        char where[240];
        cres__kwhere(st, where, sizeof where);
        if (!(kube->exec_where = (char *)cres__kube_keep(k, cres__strdup(d->a, where))))
            return cres__oom(err, "kubernetes");
    }
    if (at[1] >= 0 && (res = cres__kube_provider(st, at[1], &oidc, err)) != CRES_OK) return res;
    if (file && (res = cres__kpath(st, file, &file, err)) != CRES_OK) return res;
    if (file && !token) { /* client-go reads it at load: one it cannot read is an error now */
        char *probe = NULL;
        res = cres__read_small_file(&k->base, file, 64 * 1024, &probe, err);
        cres__free(d->a, probe);
        if (res != CRES_OK) return cres__kunreadable(st, "tokenFile", file, res, err);
    }
    kube->token = oidc ? oidc : token;
    kube->token_file = file;
    kube->tls.client_cert_pem = cert;
    kube->tls.client_key_pem = key;
    if (user || pass) {
        char *basic = NULL;
        size_t n = (user ? strlen(user) : 0) + (pass ? strlen(pass) : 0) + 2;
        char *plain = (char *)cres__alloc(d->a, n);
        if (!plain) return cres__oom(err, "kubernetes");
        snprintf(plain, n, "%s:%s", user ? user : "", pass ? pass : "");
        basic = cres__render(d->a, cres__put_basic_auth, plain);
        cres__free(d->a, plain);
        if (!basic || !cres__kube_keep(k, basic)) return cres__oom(err, "kubernetes");
        kube->basic = basic;
    }
    *kind = at[0] >= 0     ? "exec plugin"
            : oidc         ? "oidc id-token"
            : file         ? "token file"
            : token        ? "token"
            : user || pass ? "basic auth"
            : cert         ? "client certificate"
                           : "none";
    return CRES_OK;
}

/* "KUBERNETES_EXEC_INFO={"kind", "apiVersion", "spec": {"cluster" (provideClusterInfo),
   "interactive": false}}", as client-go sets it without a terminal. */
CRES__PRIVATE void cres__put_exec_info(cres__writer *w, const void *x) {
    const cres__k8s *k = (const cres__k8s *)x;
    const cres__kube *kube = &k->kube;
    const cres_http_tls *t = &kube->tls;
    cres__puts(w, CRES__EXEC_INFO "={\"kind\":\"ExecCredential\",\"apiVersion\":");
    cres__put_json_string(w, kube->exec_api);
    cres__puts(w, ",\"spec\":{");
    if (kube->exec_provide) {
        cres__puts(w, "\"cluster\":{\"server\":");
        cres__put_json_string(w, k->server);
        if (t->server_name) {
            cres__puts(w, ",\"tls-server-name\":");
            cres__put_json_string(w, t->server_name);
        }
        if (t->insecure_skip_verify) cres__puts(w, ",\"insecure-skip-tls-verify\":true");
        if (t->ca_pem) {
            cres__puts(w, ",\"certificate-authority-data\":\"");
            cres__put_base64(w, t->ca_pem, strlen(t->ca_pem));
            cres__puts(w, "\"");
        }
        if (t->proxy) {
            cres__puts(w, ",\"proxy-url\":");
            cres__put_json_string(w, t->proxy);
        }
        if (kube->exec_config) {
            cres__puts(w, ",\"config\":");
            cres__puts(w, kube->exec_config);
        }
        cres__puts(w, "},");
    }
    cres__puts(w, "\"interactive\":false}}");
}

CRES__PRIVATE cres_result cres__kube_exec_info(cres__k8s *k, cres_error *err) {
    char *info = cres__render(&k->base.config.allocator, cres__put_exec_info, k);
    if (!info || !cres__kube_keep(k, info)) return cres__oom(err, "kubernetes");
    k->kube.exec_info = info;
    return CRES_OK;
}

/* The context to use: the option, else the first current-context; none is an error, unless
   in-cluster configuration can take over (client-go's rule for a config with no context):
   then CRES_ERR_NOT_FOUND. */
CRES__PRIVATE cres_result cres__kube_context(cres__kload *L, const char *option, const char **name,
                                             cres_error *err) {
    const cres_resolver *r = &L->k->base;
    char q[CRES__PATH_QUOTE_SIZE];
    char *current;
    size_t file = 0;
    const char *host = cres_resolver_getenv(r, "KUBERNETES_SERVICE_HOST");
    cres_result res;
    *name = option;
    if (option) return CRES_OK;
    if ((res = cres__kube_current(L, &current, &file, err)) != CRES_OK) return res;
    *name = current;
    if (current) return CRES_OK;
    if (host && *host) {
        cres__log(r, CRES_LOG_INFO,
                  "kubernetes: the kubeconfig files of %s set no "
                  "current-context; using the in-cluster configuration",
                  L->origin);
        return CRES_ERR_NOT_FOUND;
    }
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "kubernetes: kubeconfig %s%s (%s) sets no current-context: pass "
                      "options.context (--context NAME) or run kubectl config use-context",
                      cres__quote_str(q, sizeof q, L->files[0].path),
                      L->count > 1 ? " and the others" : "", L->origin);
}

/* The cluster's server as the base URL of requests: https:// or http:// (none: https://, as
   client-go with a CA), a host, no blanks or control characters, no trailing slash. */
CRES__PRIVATE cres_result cres__kube_server(cres__k8s *k, const cres__kstanza *cluster,
                                            const char *server, cres_error *err) {
    const char *scheme = strstr(server, "://") ? "" : "https://", *host;
    size_t n;
    if (!*scheme && strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0)
        return cres__kfail(cluster, "server", "must be an http:// or https:// URL", err);
    host = *scheme ? server : strstr(server, "://") + 3;
    if (!*host || *host == '/' || *host == '?' || *host == '#' || cres__bad_text(server, 1))
        return cres__kfail(cluster, "server",
                           "must name a host, without blanks or control "
                           "characters",
                           err);
    if (!(k->server = cres__concat(&k->base.config.allocator, scheme, server)))
        return cres__oom(err, "kubernetes");
    for (n = strlen(k->server); n > 0 && k->server[n - 1] == '/';)
        k->server[--n] = '\0'; /* paths are appended with their own slash */
    return CRES_OK;
}

/* A context naming a cluster or user that no file defines: kubectl would go on with
   http://localhost:8080 or no credentials; we say so. */
CRES__PRIVATE cres_result cres__kube_undefined(const cres__kstanza *ctx, const char *field,
                                               const char *name, cres_error *err) {
    char why[160], q[CRES__QUOTE_SIZE];
    snprintf(why, sizeof why, "names %s, which no kubeconfig file defines%s",
             cres__quote_str(q, sizeof q, name),
             field[0] == 'c' ? " (kubectl would try http://localhost:8080)" : "");
    return cres__kfail(ctx, field, why, err);
}

/* Reads the kubeconfig and settles server, namespace, TLS and credentials from it.
   CRES_ERR_NOT_FOUND: there is none (or it names no context): in-cluster config applies. */
CRES__PRIVATE cres_result cres__kube_load(cres__k8s *k, const cres_k8s_options *o,
                                          cres_error *err) {
    cres__kload L;
    cres__kstanza ctx, cluster, user;
    const char *context, *kind = "none";
    char *cluster_name = NULL, *user_name = NULL, *server = NULL, q[CRES__QUOTE_SIZE];
    cres_result res;
    memset(&L, 0, sizeof L);
    L.k = k;
    res = cres__kube_files(&L, o->kubeconfig, err);
    if (res == CRES_OK && L.count == 0) res = CRES_ERR_NOT_FOUND;
    if (res == CRES_OK) res = cres__kube_check(&L, err);
    if (res == CRES_OK) res = cres__kube_context(&L, o->context, &context, err);
    if (res == CRES_OK) {
        cres__kube_find(&L, "contexts", "context", context, &ctx);
        if (!ctx.f) {
            char p[CRES__PATH_QUOTE_SIZE];
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "kubernetes: %s %s is defined in no kubeconfig file (%s%s, of %s)",
                             o->context ? "context" : "current-context",
                             cres__quote_str(q, sizeof q, context),
                             cres__quote_str(p, sizeof p, L.files[0].path),
                             L.count > 1 ? " and the others" : "", L.origin);
        }
    }
    if (res == CRES_OK) res = cres__kstr(&ctx, cres__kcluster, &cluster_name, err);
    if (res == CRES_OK) res = cres__kstr(&ctx, "user", &user_name, err);
    if (res == CRES_OK) res = cres__kstr(&ctx, "namespace", &k->kube.ns, err);
    if (res == CRES_OK && !cluster_name) res = cres__kfail(&ctx, cres__kcluster, "is not set", err);
    if (res == CRES_OK) {
        cres__kube_find(&L, "clusters", cres__kcluster, cluster_name, &cluster);
        if (!cluster.f) res = cres__kube_undefined(&ctx, cres__kcluster, cluster_name, err);
    }
    if (res == CRES_OK) res = cres__kube_cluster(&cluster, &server, err);
    if (res == CRES_OK && user_name) {
        cres__kube_find(&L, "users", "user", user_name, &user);
        if (!user.f) res = cres__kube_undefined(&ctx, "user", user_name, err);
        else
            res = cres__kube_user(&user, &kind, err);
    }
    if (res == CRES_OK) res = cres__kube_server(k, &cluster, server, err);
    if (res == CRES_OK && strncmp(k->server, "http://", 7) == 0 && strcmp(kind, "none") != 0) {
        /* client-go sends a kubeconfig's credentials over TLS only (impersonation goes on) */
        cres__log(&k->base, CRES_LOG_INFO,
                  "kubernetes: %s is plain HTTP: user \"%s\"'s credentials are not sent",
                  k->server, user_name);
        memset(&k->kube.tls, 0, sizeof k->kube.tls);
        k->kube.token = k->kube.token_file = k->kube.basic = NULL;
        k->kube.exec_argv = NULL;
        kind = "none (plain HTTP)";
    }
    if (res == CRES_OK && k->kube.exec_argv) res = cres__kube_exec_info(k, err);
    if (res == CRES_OK) {
        k->kube.used = 1;
        cres__log(&k->base, CRES_LOG_INFO, /* whole names: the log has room, unlike errors */
                  "kubernetes: kubeconfig \"%.160s\" (of %s): context \"%.100s\", cluster "
                  "\"%.100s\" at %.100s, user \"%.100s\": %s%s%.100s%s",
                  ctx.f->path, L.origin, context, cluster_name, k->server,
                  user_name ? user_name : "", kind, k->kube.exec_argv ? " \"" : "",
                  k->kube.exec_argv ? k->kube.exec_argv[0] : "", k->kube.exec_argv ? "\"" : "");
    }
    cres__kload_free(&L);
    return res;
}

/* ---- running exec plugins -------------------------------------------------------------- */

#ifdef _WIN32
CRES__PRIVATE cres_result cres__spawn_run(void *user, const cres_exec_request *req,
                                          cres_exec_result *out, const cres_allocator *a,
                                          cres_error *err) {
    (void)user, (void)req, (void)out, (void)a;
    return cres__fail(err, CRES_ERR_UNSUPPORTED,
                      "running a program needs config.exec on Windows (no default there)");
}
#else
#  include <errno.h>
#  include <fcntl.h>
#  include <poll.h>
#  include <signal.h>
#  include <spawn.h>
#  include <sys/wait.h>
#  include <unistd.h>
#  if !defined(__cplusplus) && !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE)
int kill(pid_t pid, int signal); /* POSIX; <signal.h> hides it in strict ISO C modes */
#  endif
/* A plugin gets stdin, stdout and stderr only, as kubectl's do: not the other threads' pipes
   and connections (glibc 2.34 closes the rest for us; elsewhere descriptors made without
   FD_CLOEXEC by the program stay open in the plugin). */
#  if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#    define CRES__SPAWN_CLOSEFROM 1
#    if !defined(__cplusplus) && !defined(_GNU_SOURCE) /* <spawn.h> declares it for GNU only */
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
#    endif
#  endif

typedef struct cres__spawned {
    pid_t pid;
    int fd[2]; /* stdout, stderr: read ends, -1 once closed */
    const cres_allocator *a;
    cres_exec_result *out;
    size_t out_cap, max;
} cres__spawned;

/* Starts argv with stdin /dev/null and stdout, stderr into pipes; the errno of a failure. */
CRES__PRIVATE int cres__spawn(cres__spawned *s, const cres_exec_request *req) {
    int p[4] = {-1, -1, -1, -1}, rc, i;
    posix_spawn_file_actions_t fa;
    if (pipe(p) != 0 || pipe(p + 2) != 0) {
        rc = errno;
        for (i = 0; i < 4; i++)
            if (p[i] >= 0) close(p[i]);
        return rc;
    }
    for (i = 0; i < 4; i++) /* children of other threads should not hold them; one spawned
                                between pipe() and here may, so the reading loop does not wait
                                for end-of-file once our plugin has exited */
        fcntl(p[i], F_SETFD, FD_CLOEXEC);
    if ((rc = posix_spawn_file_actions_init(&fa)) == 0) {
        rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, p[1], 1);
        if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, p[3], 2);
#ifdef CRES__SPAWN_CLOSEFROM
        if (!rc) rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
        if (!rc)
            rc = posix_spawnp(&s->pid, req->argv[0], &fa, NULL, (char *const *)req->argv,
                              (char *const *)req->envp);
        posix_spawn_file_actions_destroy(&fa);
    }
    close(p[1]);
    close(p[3]);
    s->fd[0] = p[0];
    s->fd[1] = p[2];
    if (rc) {
        close(p[0]);
        close(p[2]);
        s->fd[0] = s->fd[1] = -1;
    }
    return rc;
}

enum {
    CRES__SPAWN_RUNNING,
    CRES__SPAWN_TIMEOUT,
    CRES__SPAWN_TOO_MUCH,
    CRES__SPAWN_OOM,
    CRES__SPAWN_LOST
};

/* Appends what fd i has to stdout (bounded) or to stderr's last bytes; *stop set when stdout
   is too large or memory runs out. */
CRES__PRIVATE void cres__spawn_read(cres__spawned *s, int i, int *stop) {
    char chunk[4096];
    cres_exec_result *o = s->out;
    ssize_t n = read(s->fd[i], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) return;
    if (n <= 0) {
        close(s->fd[i]);
        s->fd[i] = -1;
        return;
    }
    if (i == 1) { /* stderr: keep its end */
        size_t k = (size_t)n > CRES_EXEC_STDERR_KEEP ? CRES_EXEC_STDERR_KEEP : (size_t)n;
        if (o->err_len + k > CRES_EXEC_STDERR_KEEP) {
            size_t drop = o->err_len + k - CRES_EXEC_STDERR_KEEP;
            memmove(o->err, o->err + drop, o->err_len - drop);
            o->err_len -= drop;
        }
        memcpy(o->err + o->err_len, chunk + (size_t)n - k, k);
        o->err[o->err_len += k] = '\0';
    } else if ((size_t)n > s->max - o->out_len) {
        *stop = CRES__SPAWN_TOO_MUCH;
    } else if (!cres__grow(s->a, (void **)&o->out, &s->out_cap, 1, o->out_len + (size_t)n + 1)) {
        *stop = CRES__SPAWN_OOM;
    } else {
        memcpy(o->out + o->out_len, chunk, (size_t)n);
        o->out[o->out_len += (size_t)n] = '\0';
    }
}

/* A wait status as an exit code: 0..255, 128 + N for signal N. */
CRES__PRIVATE int cres__exit_code(int status) {
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Waits for the program to end, killing it at the deadline; its exit code. */
CRES__PRIVATE int cres__spawn_wait(pid_t pid, long long deadline, int kill_now) {
    int status = 0;
    pid_t got;
    if (kill_now) kill(pid, SIGKILL);
    while ((got = waitpid(pid, &status, kill_now ? 0 : WNOHANG)) == 0 ||
           (got < 0 && errno == EINTR)) {
        if (got == 0 && cres__now_ms() >= deadline) {
            kill(pid, SIGKILL); /* it closed its output but lives on */
            kill_now = 1;
        } else if (got == 0) {
            cres__system_sleep(NULL, 5);
        }
    }
    if (got < 0) return -1;
    return cres__exit_code(status);
}

/* Why a plugin could not start, in words (strerror's buffer may be shared between threads). */
CRES__PRIVATE const char *cres__spawn_why(int rc) {
    switch (rc) {
    case ENOENT: return "no such file (not in PATH?)";
    case EACCES: return "permission denied";
    case ENOEXEC: return "not an executable format (a script without #!?)";
    case EMFILE:
    case ENFILE: return "too many open files";
    case ENOMEM:
    case EAGAIN: return "out of memory or processes";
    case E2BIG: return "its arguments and environment are too long";
    default: return "the system refused to start it";
    }
}

/* The default config.exec: posix_spawnp, no shell, bounded in time and output. */
CRES__PRIVATE cres_result cres__spawn_run(void *user, const cres_exec_request *req,
                                          cres_exec_result *out, const cres_allocator *a,
                                          cres_error *err) {
    cres__spawned s;
    long long deadline = cres__now_ms() + req->timeout_ms;
    const char *name = req->argv[0];
    char q[CRES__QUOTE_SIZE];
    int rc, stop = CRES__SPAWN_RUNNING, exited = 0, status = 0;
    (void)user;
    memset(&s, 0, sizeof s);
    memset(out, 0, sizeof *out);
    s.a = a, s.out = out, s.max = req->max_output_bytes;
    cres__quote_str(q, sizeof q, name);
    if (!(out->err = (char *)cres__alloc(a, CRES_EXEC_STDERR_KEEP + 1)))
        return cres__oom(err, "exec");
    out->err[0] = '\0';
    if ((rc = cres__spawn(&s, req)) != 0) {
        cres__free(a, out->err);
        out->err = NULL;
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "cannot run %s: %s (errno %d)", q,
                          cres__spawn_why(rc), rc);
    }
    while (!stop && (s.fd[0] >= 0 || s.fd[1] >= 0)) {
        struct pollfd p[2];
        long long left = deadline - cres__now_ms();
        int n = 0, i, ready;
        if (left <= 0) {
            stop = CRES__SPAWN_TIMEOUT;
            break;
        }
        for (i = 0; i < 2; i++)
            if (s.fd[i] >= 0) p[n].fd = s.fd[i], p[n].events = POLLIN, p[n++].revents = 0;
        ready = poll(p, (nfds_t)n, exited ? 0 : left > 200 ? 200 : (int)left);
        for (i = 0; ready > 0 && i < n && !stop; i++)
            if (p[i].revents) cres__spawn_read(&s, p[i].fd == s.fd[0] ? 0 : 1, &stop);
        if (ready == 0 && exited) break; /* it has exited and its output is read */
        if (ready == 0 && waitpid(s.pid, &status, WNOHANG) == s.pid) exited = 1;
    }
    if (s.fd[0] >= 0) close(s.fd[0]);
    if (s.fd[1] >= 0) close(s.fd[1]);
    if (exited) /* a descriptor leaked to another process held the pipe open */
        out->exit_code = cres__exit_code(status);
    else out->exit_code = cres__spawn_wait(s.pid, deadline, stop != CRES__SPAWN_RUNNING);
    if (!stop && out->exit_code < 0) stop = CRES__SPAWN_LOST;
    if (!stop && !out->out && !(out->out = (char *)cres__alloc(a, 1))) stop = CRES__SPAWN_OOM;
    if (!stop) {
        out->out[out->out_len] = '\0';
        return CRES_OK;
    }
    cres__free(a, out->out);
    cres__free(a, out->err);
    memset(out, 0, sizeof *out);
    if (stop == CRES__SPAWN_OOM) return cres__oom(err, "exec");
    if (stop == CRES__SPAWN_TOO_MUCH)
        return cres__fail(err, CRES_ERR_LIMIT, "%s printed more than %zu bytes and was killed", q,
                          req->max_output_bytes);
    if (stop == CRES__SPAWN_LOST)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: its exit status was lost", q);
    return cres__fail(err, CRES_ERR_TIMEOUT, "%s ran longer than %d ms and was killed", q,
                      req->timeout_ms);
}
#endif /* _WIN32 */

/* The plugin's environment: the process's (config.env_list) with exec.env and
   KUBERNETES_EXEC_INFO set over it, as client-go builds it. NULL when out of memory. */
CRES__PRIVATE const char **cres__k8s_exec_env(cres__k8s *k) {
    const cres_allocator *a = &k->base.config.allocator;
    const cres__kube *kube = &k->kube;
    size_t n = 0, extra = 0, i, j, used = 0;
    const char *v, **envp;
    while (kube->exec_env[extra]) extra++;
    while (cres_resolver_env_at(&k->base, n)) n++;
    if (!(envp = (const char **)cres__alloc(a, (n + extra + 2) * sizeof *envp))) return NULL;
    for (i = 0; i < n && (v = cres_resolver_env_at(&k->base, i)) != NULL; i++) {
        size_t name = strcspn(v, "=");
        int replaced = name == sizeof CRES__EXEC_INFO - 1 && !memcmp(v, CRES__EXEC_INFO, name);
        for (j = 0; j < extra && !replaced; j++)
            replaced = !strncmp(kube->exec_env[j], v, name) && kube->exec_env[j][name] == '=';
        if (!replaced) envp[used++] = v;
    }
    for (j = 0; j < extra; j++) envp[used++] = kube->exec_env[j];
    envp[used++] = kube->exec_info;
    envp[used] = NULL;
    return envp;
}

/* The plugin's stderr, line by line, to the log (it is the plugin's message to the user). */
CRES__PRIVATE void cres__k8s_exec_stderr(const cres__k8s *k, const char *text, char *last,
                                         size_t cap) {
    const char *line = text;
    last[0] = '\0';
    while (*line) {
        size_t n = strcspn(line, "\r\n");
        if (n) {
            cres__log(&k->base, CRES_LOG_INFO, "kubernetes: exec plugin \"%s\": %.*s",
                      k->kube.exec_argv[0], (int)(n > 400 ? 400 : n), line);
            snprintf(last, cap, ": %.*s", (int)(n > 160 ? 160 : n), line);
        }
        line += n + (line[n] != '\0');
    }
}

/* Reads an ExecCredential the plugin printed into k->kube.cred. */
CRES__PRIVATE cres_result cres__k8s_exec_read(cres__k8s *k, const char *text, size_t n,
                                              cres_error *err) {
    static const char *const top[] = {"apiVersion", "kind", "status"};
    static const char *const status[] = {"token", "clientCertificateData", "clientKeyData",
                                         "expirationTimestamp"};
    const cres_allocator *a = &k->base.config.allocator;
    cres__kube_cred c;
    cres__json d;
    char what[120], q[CRES__QUOTE_SIZE], *expiry = NULL;
    char **slot[3];
    int t[3], s[4], i, ok = 1;
    cres_result res;
    snprintf(what, sizeof what, "kubernetes: exec plugin \"%.60s\"", k->kube.exec_argv[0]);
    if ((res = cres__json_parse(&d, text, n, a, what, CRES_ERR_ENVIRONMENT, err)) != CRES_OK)
        return res;
    memset(&c, 0, sizeof c);
    slot[0] = &c.token, slot[1] = &c.cert_pem, slot[2] = &c.key_pem;
    cres__json_pick(&d, 0, top, t, 3);
    cres__json_pick(&d, t[2], status, s, 4);
    if (t[0] < 0 || !cres__json_eq(&d, t[0], k->kube.exec_api)) {
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "%s printed apiVersion %s, not %s", what,
                         t[0] < 0 ? "none" : cres__json_quote(&d, t[0], q, sizeof q),
                         k->kube.exec_api);
    } else if (t[1] < 0 || !cres__json_eq(&d, t[1], "ExecCredential")) {
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "%s printed no ExecCredential", what);
    } else {
        for (i = 0; i < 4 && ok == 1; i++)
            if (s[i] >= 0 && !cres__json_is_null(&d, s[i]) && d.t[s[i]].type != JSMN_STRING)
                ok = -1;
            else if (s[i] >= 0 && !cres__json_is_null(&d, s[i]))
                ok = cres__json_strdup(&d, s[i], i < 3 ? slot[i] : &expiry);
        if (ok == 0)
            res = cres__oom(err, "kubernetes");
        else if (ok < 0)
            res = cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: status.%s is not a string", what,
                             status[i - 1]);
        else if (!c.cert_pem != !c.key_pem)
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "%s printed clientCertificateData or "
                             "clientKeyData without the other",
                             what);
        else if ((!c.token || !*c.token) && !c.cert_pem)
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "%s printed no token and no client "
                             "certificate",
                             what);
        else if (expiry && !cres__parse_rfc3339(expiry, &c.expires))
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "%s: status.expirationTimestamp %s is not "
                             "an RFC 3339 time",
                             what, cres__quote_str(q, sizeof q, expiry));
    }
    cres__free(a, expiry);
    cres__json_free(&d);
    if (res != CRES_OK) {
        cres__kube_cred_free(a, &c);
        return res;
    }
    cres__kube_cred_free(a, &k->kube.cred);
    c.have = 1;
    if (!expiry) c.expires = LLONG_MAX; /* never: cached for the resolver's life */
    k->kube.cred = c;
    return CRES_OK;
}

/* Runs the exec plugin for a fresh credential, within what is left of the resolve. */
CRES__PRIVATE cres_result cres__k8s_exec(cres__k8s *k, const cres__http *h, cres_error *err) {
    const cres_allocator *a = &k->base.config.allocator;
    const cres__kube *kube = &k->kube;
    cres_exec_request req;
    cres_exec_result out;
    const char **envp = cres__k8s_exec_env(k);
    long long left = h->deadline ? h->deadline - cres__now_ms() : CRES__EXEC_TIMEOUT_MS;
    char last[200], q[CRES__QUOTE_SIZE];
    cres_result res;
    if (!envp) return cres__oom(err, "kubernetes");
    memset(&req, 0, sizeof req);
    req.argv = (const char *const *)kube->exec_argv;
    req.envp = envp;
    req.timeout_ms = left <= 0 ? 1 : left > INT_MAX ? INT_MAX : (int)left;
    req.max_output_bytes = CRES__EXEC_MAX_OUTPUT;
    cres__log(&k->base, CRES_LOG_DEBUG, "kubernetes: running exec plugin %s",
              cres__quote_str(q, sizeof q, kube->exec_argv[0]));
    memset(&out, 0, sizeof out);
    res = (k->base.config.exec.fn ? k->base.config.exec.fn
                                  : cres__spawn_run)(k->base.config.exec.user, &req, &out, a, err);
    cres__free(a, (void *)envp);
    if (res != CRES_OK) {
        char prefix[400];
        snprintf(prefix, sizeof prefix, "kubernetes: %s: exec plugin%s%.200s%s: ",
                 kube->exec_where, kube->exec_hint ? " (" : "",
                 kube->exec_hint ? kube->exec_hint : "", kube->exec_hint ? ")" : "");
        return cres__wrap(err, res, CRES_OK, prefix);
    }
    cres__k8s_exec_stderr(k, out.err ? out.err : "", last, sizeof last);
    if (out.exit_code != 0)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "kubernetes: exec plugin %s exited with %d%s",
                         q, out.exit_code, last);
    else
        res = cres__k8s_exec_read(k, out.out, out.out_len, err);
    cres__free(a, out.out);
    cres__free(a, out.err);
    return res;
}
#endif /* CLUSTER_RESOLVER_NO_KUBECONFIG */

/* ---- credentials of one resolve --------------------------------------------------------- */

typedef struct cres__k8s_auth {
    cres_http_header *headers; /* Accept, then Authorization and impersonation when set */
    size_t count;
    size_t bearer_at; /* the Authorization header's place; 0 = none yet */
    char *bearer;     /* "Bearer <token>" */
    char *file_token; /* a token file's text this resolve */
    cres_http_tls tls;
    int reran;   /* the exec plugin ran again after a 401 */
    int applied; /* the plugin's current credential is in the headers and TLS */
} cres__k8s_auth;

/* Sets "Authorization: Bearer <token>" (replacing the one set before). */
CRES__PRIVATE cres_result cres__k8s_bearer(cres__k8s *k, cres__k8s_auth *au, const char *t,
                                           cres_error *err) {
    const cres_allocator *a = &k->base.config.allocator;
    if (!*t || cres__bad_text(t, 1)) /* a CR or LF would smuggle in another header */
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "kubernetes: the token is empty or has spaces, control characters or "
                          "invalid UTF-8");
    cres__free(a, au->bearer);
    if (!(au->bearer = cres__bearer_value(a, t))) return cres__oom(err, "kubernetes");
    if (!au->bearer_at) au->bearer_at = au->count++;
    au->headers[au->bearer_at].name = cres__authorization;
    au->headers[au->bearer_at].value = au->bearer;
    return CRES_OK;
}

#ifndef CLUSTER_RESOLVER_NO_KUBECONFIG
/* Whether the exec plugin gives this resolver's credential (options.token and token_file win). */
CRES__PRIVATE int cres__k8s_uses_exec(const cres__k8s *k) {
    return k->kube.exec_argv && !k->token && !k->token_file;
}

/* The plugin's credential into the request headers and TLS, once per credential; the plugin
   runs first when there is none or it has expired. */
CRES__PRIVATE cres_result cres__k8s_exec_apply(cres__k8s *k, cres__http *h, cres__k8s_auth *au,
                                               cres_error *err) {
    const cres__kube_cred *c = &k->kube.cred;
    cres_result res;
    if (!c->have || (long long)time(NULL) >= c->expires) {
        if ((res = cres__k8s_exec(k, h, err)) != CRES_OK) return res;
        au->applied = 0; /* a new credential */
    }
    if (au->applied) return CRES_OK;
    au->applied = 1;
    au->tls.client_cert_pem = c->cert_pem ? c->cert_pem : k->kube.tls.client_cert_pem;
    au->tls.client_key_pem = c->key_pem ? c->key_pem : k->kube.tls.client_key_pem;
    return c->token && *c->token ? cres__k8s_bearer(k, au, c->token, err) : CRES_OK;
}
#endif

/* The token of a file, read at every resolve (bound service account tokens rotate). */
CRES__PRIVATE cres_result cres__k8s_file_token(cres__k8s *k, cres__k8s_auth *au, const char *path,
                                               cres_error *err) {
    cres_result res = cres__read_small_file(&k->base, path, 64 * 1024, &au->file_token, err);
    return res == CRES_OK ? cres__k8s_bearer(k, au, au->file_token, err) : res;
}

/* The headers and TLS material of one resolve: options.token or token_file, else the
   kubeconfig user's (exec plugin, token file, token, basic auth, impersonation), else the
   service account's token file in a cluster. */
CRES__PRIVATE cres_result cres__k8s_auth_begin(cres__k8s *k, cres__http *h, cres__k8s_auth *au,
                                               cres_error *err) {
    const cres_allocator *a = &k->base.config.allocator;
    size_t groups = 0, i;
    cres_result res = CRES_OK;
    memset(au, 0, sizeof au[0]);
#ifndef CLUSTER_RESOLVER_NO_KUBECONFIG
    groups = k->kube.as_groups_count;
    au->tls = k->kube.tls;
    if (k->ca_file) au->tls.ca_pem = NULL; /* options.ca_file wins */
#endif
    if (!(au->headers = (cres_http_header *)cres__alloc(a, (5 + groups) * sizeof *au->headers)))
        return cres__oom(err, "kubernetes");
    au->headers[0].name = cres__accept;
    au->headers[0].value = cres__json_media;
    au->count = 1;
    if (k->token) res = cres__k8s_bearer(k, au, k->token, err);
    else if (k->token_file) res = cres__k8s_file_token(k, au, k->token_file, err);
#ifndef CLUSTER_RESOLVER_NO_KUBECONFIG
    if (k->token || k->token_file) { /* the user's credentials go, the cluster's TLS stays */
        au->tls.client_cert_pem = au->tls.client_key_pem = NULL;
    } else if (k->kube.exec_argv) {
        /* cres__k8s_get runs the plugin before each request that needs it */
    } else if (k->kube.token_file) { /* readable, it wins over token (client-go's rule) */
        res = cres__k8s_file_token(k, au, k->kube.token_file, err);
        if (res != CRES_OK && res != CRES_ERR_OUT_OF_MEMORY && k->kube.token)
            res = cres__k8s_bearer(k, au, k->kube.token, err);
        else if (res != CRES_OK) res = cres__wrap(err, res, CRES_OK, "kubeconfig tokenFile: ");
    } else if (k->kube.token) {
        res = cres__k8s_bearer(k, au, k->kube.token, err);
    } else if (k->kube.basic) {
        au->headers[au->count].name = cres__authorization;
        au->headers[au->count++].value = k->kube.basic;
    }
    if (k->kube.as_user) {
        au->headers[au->count].name = "Impersonate-User";
        au->headers[au->count++].value = k->kube.as_user;
    }
    if (k->kube.as_uid) {
        au->headers[au->count].name = "Impersonate-Uid";
        au->headers[au->count++].value = k->kube.as_uid;
    }
    for (i = 0; i < groups; i++) {
        au->headers[au->count].name = "Impersonate-Group";
        au->headers[au->count++].value = k->kube.as_groups[i];
    }
    if (k->kube.used) h->tls = &au->tls;
#else
    (void)h, (void)i;
#endif
    return res;
}

CRES__PRIVATE void cres__k8s_auth_end(cres__k8s *k, cres__k8s_auth *au) {
    const cres_allocator *a = &k->base.config.allocator;
    cres__free(a, au->headers);
    cres__free(a, au->bearer);
    cres__free(a, au->file_token);
}

/* GET url with the resolve's credentials; a 401 while an exec plugin gives them runs the
   plugin once more and asks again (its credential may have been revoked early). */
CRES__PRIVATE cres_result cres__k8s_get(cres__k8s *k, cres__http *h, cres__k8s_auth *au,
                                        const char *url, cres_http_response *resp,
                                        cres_error *err) {
    cres_result res;
    for (;;) {
#ifndef CLUSTER_RESOLVER_NO_KUBECONFIG
        if (cres__k8s_uses_exec(k) && (res = cres__k8s_exec_apply(k, h, au, err)) != CRES_OK)
            return res;
#endif
        res =
            cres__http_request(h, "GET", url, au->headers, au->count, NULL, k->ca_file, resp, err);
#ifndef CLUSTER_RESOLVER_NO_KUBECONFIG
        if (res == CRES_OK && resp->status == 401 && cres__k8s_uses_exec(k) && !au->reran) {
            cres__log(&k->base, CRES_LOG_INFO,
                      "kubernetes: 401 Unauthorized: running the exec plugin again");
            cres__response_free(&k->base, resp);
            au->reran = 1;
            k->kube.cred.have = 0;
            continue;
        }
#endif
        return res;
    }
}

/* ////////////////////////////////////////////////////////////////////////////////////////
   Kubernetes: the pods of a job                                                            */

CRES__PRIVATE const char *cres__pod_str(const cres__pod *p, int field) {
    return p->at[field] ? (const char *)(p + 1) + p->at[field] - 1 : NULL;
}

CRES__PRIVATE void cres__pods_truncate(const cres_allocator *a, cres__pods *pods, size_t keep) {
    while (pods->count > keep) cres__free(a, pods->items[--pods->count]);
}

/* An index (completion or JobSet global) from an annotation or label object: -1 when absent,
   -2 (with why) when present but not an index, which the controllers never write. */
CRES__PRIVATE int cres__k8s_index(const cres__json *d, int map, const char *key, char *why,
                                  size_t cap) {
    int v, index;
    cres__json_pick(d, map, &key, &v, 1);
    if (v < 0 || cres__json_is_null(d, v)) return -1;
    return cres__json_index(d, v, 1, &index, why, cap) ? index : -2;
}

/* The completion index, annotation first; a JobSet pod's job-global-index, label first. An
   index that is there but malformed, or a JobSet pod without its global index, is an error:
   ordering by anything else would give tasks that disagree with the pods' own indices. */
CRES__PRIVATE cres_result cres__k8s_pod_indices(const cres__json *d, const int *m, cres__pod *p,
                                                cres_error *err) {
    char q[CRES__QUOTE_SIZE], why[128];
    const char *key = CRES__K8S_INDEX_KEY;
    p->index = cres__k8s_index(d, m[3], key, why, sizeof why);
    if (p->index == -1) p->index = cres__k8s_index(d, m[4], key, why, sizeof why);
    p->global = -1;
    if (p->index != -2 && CRES__POD(p, jobset)) {
        key = CRES__K8S_GLOBAL_KEY;
        p->global = cres__k8s_index(d, m[4], key, why, sizeof why);
        if (p->global == -1) p->global = cres__k8s_index(d, m[3], key, why, sizeof why);
        if (p->global == -1) {
            snprintf(why, sizeof why, "is missing, but the pod has " CRES__K8S_JOBSET_KEY);
            p->global = -2;
        }
    }
    if (p->index != -2 && p->global != -2) return CRES_OK;
    return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE, "kubernetes: pod %s: %s %s",
                      cres__quote_str(q, sizeof q, CRES__POD(p, name)), key, why);
}

/* The strings a pod's address needs, with those every pod needs (each field is checked all
   the same): 100,000 pods are a hundred bytes each. */
CRES__PRIVATE unsigned cres__k8s_pod_fields(const cres__k8s *k) {
    unsigned keep = 1u << CRES__POD_name | 1u << CRES__POD_ns | 1u << CRES__POD_phase |
                    1u << CRES__POD_jobset;
    if (k->address == CRES_K8S_HOST_IP) return keep | 1u << CRES__POD_host_ip;
    if (k->address == CRES_K8S_DNS)
        keep |= 1u << CRES__POD_hostname | 1u << CRES__POD_subdomain;
    return keep | 1u << CRES__POD_ip;
}

/* Whether token v (a pod's name or hostname) is the resolver's hostname. */
CRES__PRIVATE int cres__k8s_names_host(const cres__k8s *k, const cres__json *d, int v) {
    return v >= 0 && k->hostname && cres__json_eq(d, v, k->hostname);
}

/* Reads list item `item` into a new *out. */
CRES__PRIVATE cres_result cres__k8s_read_pod(const cres__k8s *k, const cres__json *d, int item,
                                            cres__pod **out, cres_error *err) {
    const cres_allocator *a = &k->base.config.allocator;
    unsigned keep = cres__k8s_pod_fields(k);
    static const char *const top[] = {"metadata", "spec", "status"};
    static const char *const meta[] = {"name", "namespace", "deletionTimestamp", "annotations",
                                       "labels"};
    static const char *const spec[] = {"hostname", "subdomain"};
    static const char *const status[] = {"phase", "podIP", "hostIP"};
    static const char *const jobset[] = {CRES__K8S_JOBSET_KEY};
    static const char *const names[] = {
        /* in the order of the fields */
        "metadata.name", "metadata.namespace",
        "status.podIP",  "status.hostIP",
        "spec.hostname", "spec.subdomain",
        "status.phase",  "metadata.labels[" CRES__K8S_JOBSET_KEY "]"};
    int t[3], m[5], sp[2], st[3], field[CRES__POD_FIELDS], i, running, own;
    char q[CRES__QUOTE_SIZE], *text;
    size_t size = 1, used = 0;
    cres__pod *p;
    cres_result res;
    cres__json_pick(d, item, top, t, 3);
    cres__json_pick(d, t[0], meta, m, 5);
    cres__json_pick(d, t[1], spec, sp, 2);
    cres__json_pick(d, t[2], status, st, 3);
    cres__json_pick(d, m[4], jobset, &field[CRES__POD_jobset], 1);
    field[CRES__POD_name] = m[0], field[CRES__POD_ns] = m[1], field[CRES__POD_ip] = st[1],
    field[CRES__POD_host_ip] = st[2], field[CRES__POD_hostname] = sp[0],
    field[CRES__POD_subdomain] = sp[1], field[CRES__POD_phase] = st[0];
    if (m[0] < 0 || d->t[m[0]].type != JSMN_STRING)
        return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                          "kubernetes: a pod in the list has no \"metadata.name\"");
    cres__quote(q, sizeof q, d->s + d->t[m[0]].start, (size_t)(d->t[m[0]].end - d->t[m[0]].start));
    running = field[CRES__POD_phase] >= 0 && cres__json_eq(d, field[CRES__POD_phase], "Running");
    if (running) keep &= ~(1u << CRES__POD_phase); /* the flag says it */
    own = cres__k8s_names_host(k, d, field[CRES__POD_name]) ||
          cres__k8s_names_host(k, d, field[CRES__POD_hostname]);
    for (i = 0; i < CRES__POD_FIELDS; i++) { /* absent or null: absent; others are strings */
        if (field[i] >= 0 && cres__json_is_null(d, field[i])) field[i] = -1;
        if (field[i] >= 0 && d->t[field[i]].type != JSMN_STRING)
            return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                              "kubernetes: pod %s: \"%s\" is not a string", q, names[i]);
        if (!(keep >> i & 1u)) field[i] = -1;
        if (field[i] >= 0) size += (size_t)(d->t[field[i]].end - d->t[field[i]].start) + 1;
    }
    if (size > 65535) /* the offsets' range; the API server allows a few hundred bytes */
        return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                          "kubernetes: pod %s: its names and addresses take %zu bytes", q, size);
    if (!(p = (cres__pod *)cres__alloc(a, sizeof *p + size))) return cres__oom(err, "kubernetes");
    memset(p, 0, sizeof *p);
    text = (char *)(p + 1);
    for (i = 0; i < CRES__POD_FIELDS; i++) {
        const jsmntok_t *tok = &d->t[field[i] < 0 ? 0 : field[i]];
        long n;
        if (field[i] < 0) continue;
        p->at[i] = (unsigned short)(used + 1);
        n = cres__json_unescape(d->s + tok->start, (size_t)(tok->end - tok->start), text + used);
        used += (size_t)(n < 0 ? 0 : n) + 1; /* n < 0 cannot happen: the text was checked */
        text[used - 1] = '\0';
    }
    if (!p->at[CRES__POD_ns]) p->at[CRES__POD_ns] = (unsigned short)(used + 1); /* "" */
    text[used] = '\0';
    p->terminating = m[2] >= 0 && !cres__json_is_null(d, m[2]);
    p->running = (unsigned char)running;
    p->own = (unsigned char)own;
    if ((res = cres__k8s_pod_indices(d, m, p, err)) != CRES_OK) cres__free(a, p);
    else *out = p;
    return res;
}

/* A page is read without tokenizing it whole: the top level is walked here and each item
   gets jsmn tokens of its own in a reused buffer, so memory follows the page's bytes and one
   pod, not the page's token count (300,000 tokens, 6 MB, for 500 real pods). */
typedef struct cres__page {
    cres__k8s *k;
    cres__scan c;
    jsmntok_t *tokens; /* reused for every item */
    size_t tokens_cap;
    cres__pods *pods;
    char *next;        /* metadata.continue */
    cres_error *err;
    int has_items;     /* a list has "items" (null for none): a Status answered 200 has not */
} cres__page;

#define CRES__PAGE_WHAT "kubernetes: pod list"

CRES__PRIVATE int cres__page_expect(cres__page *pg, char ch, const char *why) {
    cres__skip_ws(&pg->c);
    if (pg->c.pos < pg->c.n && pg->c.s[pg->c.pos] == ch) {
        pg->c.pos++;
        cres__skip_ws(&pg->c);
        return 1;
    }
    pg->c.why = why;
    return 0;
}

/* Checks the value at the scan position, moves past it, and tokenizes it into d. */
CRES__PRIVATE cres_result cres__page_value(cres__page *pg, cres__json *d) {
    size_t start = pg->c.pos, tokens = 0;
    cres_result res = cres__json_check_value(&pg->c, 0, &tokens);
    int ok;
    if (res != CRES_OK)
        return cres__json_syntax_error(&pg->c, res, CRES__PAGE_WHAT, CRES_ERR_UNEXPECTED_RESPONSE,
                                       pg->err);
    memset(d, 0, sizeof *d);
    d->a = &pg->k->base.config.allocator;
    ok = cres__json_tokenize(d, pg->c.s + start, pg->c.pos - start, tokens, &pg->tokens,
                             &pg->tokens_cap);
    if (ok == 0) return cres__oom(pg->err, "kubernetes");
    if (ok < 0) d->count = 0; /* a bare number or literal: no container, nothing to read */
    return CRES_OK;
}

CRES__PRIVATE cres_result cres__page_item(cres__page *pg, int i) {
    const cres_allocator *a = &pg->k->base.config.allocator;
    cres__pods *pods = pg->pods;
    cres__json d;
    cres_result res = cres__page_value(pg, &d);
    if (res != CRES_OK) return res;
    if (d.count == 0 || d.t[0].type != JSMN_OBJECT)
        return cres__fail(pg->err, CRES_ERR_UNEXPECTED_RESPONSE,
                          "kubernetes: pod list item %d is not an object", i);
    if (pods->count >= CRES_MAX_K8S_PODS)
        return cres__fail(pg->err, CRES_ERR_LIMIT, "kubernetes: more than %d pods for one job",
                          CRES_MAX_K8S_PODS);
    if (!cres__grow(a, (void **)&pods->items, &pods->cap, sizeof *pods->items, pods->count + 1))
        return cres__oom(pg->err, "kubernetes");
    res = cres__k8s_read_pod(pg->k, &d, 0, &pods->items[pods->count], pg->err);
    if (res == CRES_OK) pods->count++;
    return res;
}

CRES__PRIVATE cres_result cres__page_items(cres__page *pg) {
    int i;
    cres_result res;
    if (pg->c.s[pg->c.pos] == 'n') { /* "items": null */
        cres__json ignored;
        return cres__page_value(pg, &ignored);
    }
    if (pg->c.s[pg->c.pos] != '[')
        return cres__fail(pg->err, CRES_ERR_UNEXPECTED_RESPONSE,
                          "kubernetes: pod list \"items\" is not a list");
    cres__page_expect(pg, '[', "");
    if (pg->c.pos < pg->c.n && pg->c.s[pg->c.pos] == ']') {
        pg->c.pos++;
        return CRES_OK;
    }
    for (i = 0;; i++) {
        if ((res = cres__page_item(pg, i)) != CRES_OK) return res;
        if (cres__page_expect(pg, ']', "")) return CRES_OK;
        if (!cres__page_expect(pg, ',', "expected ',' or ']'"))
            return cres__json_syntax_error(&pg->c, CRES_ERR_INVALID_JSON, CRES__PAGE_WHAT,
                                           CRES_ERR_UNEXPECTED_RESPONSE, pg->err);
    }
}

CRES__PRIVATE cres_result cres__page_metadata(cres__page *pg) {
    static const char *const key[] = {"continue"};
    cres__json d;
    int m;
    cres_result res = cres__page_value(pg, &d);
    if (res != CRES_OK || d.count == 0) return res;
    cres__json_pick(&d, 0, key, &m, 1);
    cres__free(d.a, pg->next);
    pg->next = NULL;
    if (m >= 0 && d.t[m].type == JSMN_STRING && d.t[m].end > d.t[m].start &&
        cres__json_strdup(&d, m, &pg->next) == 0)
        return cres__oom(pg->err, "kubernetes");
    return CRES_OK;
}

/* Does the string at the scan position (a key, checked) equal lit exactly? */
CRES__PRIVATE int cres__page_key(cres__page *pg, const char *lit, size_t *end) {
    size_t start = pg->c.pos + 1, k = strlen(lit);
    cres__scan probe = pg->c;
    if (!cres__scan_string(&probe)) return -1;
    *end = probe.pos;
    return probe.pos - 1 - start == k && memcmp(pg->c.s + start, lit, k) == 0;
}

/* Appends the pods of one PodList page; *next gets metadata.continue (NULL when last). */
/* A syntax error at the scan position, saying `why` (NULL: the reason already noted). */
CRES__PRIVATE cres_result cres__page_bad(cres__page *pg, const char *why) {
    if (why) pg->c.why = why;
    return cres__json_syntax_error(&pg->c, CRES_ERR_INVALID_JSON, CRES__PAGE_WHAT,
                                   CRES_ERR_UNEXPECTED_RESPONSE, pg->err);
}

/* "kind", when given, must be a pod list's: a 200 with another object is not an empty job. */
CRES__PRIVATE cres_result cres__page_kind(cres__page *pg) {
    cres__json d;
    char q[CRES__QUOTE_SIZE];
    cres_result res = cres__page_value(pg, &d);
    if (res == CRES_OK && (d.count == 0 || !cres__json_eq(&d, 0, "PodList")))
        res = cres__fail(pg->err, CRES_ERR_UNEXPECTED_RESPONSE,
                         "kubernetes: the answer's \"kind\" is %s, not \"PodList\"",
                         d.count ? cres__json_quote(&d, 0, q, sizeof q) : "not a string");
    return res;
}

/* One member of the list object: "items", "kind" and "metadata" are read, others checked and
   skipped. */
CRES__PRIVATE cres_result cres__page_member(cres__page *pg) {
    size_t end, ignored;
    int items, meta, kind;
    cres_result res;
    if (pg->c.pos >= pg->c.n || pg->c.s[pg->c.pos] != '"')
        return cres__page_bad(pg, "expected a string key");
    if ((items = cres__page_key(pg, "items", &end)) < 0) {
        cres__scan_string(&pg->c); /* says what is wrong with the key */
        return cres__page_bad(pg, NULL);
    }
    meta = cres__page_key(pg, "metadata", &end);
    kind = cres__page_key(pg, "kind", &end);
    pg->c.pos = end;
    if (!cres__page_expect(pg, ':', "expected ':' after a key")) return cres__page_bad(pg, NULL);
    if (pg->c.pos >= pg->c.n) return cres__page_bad(pg, "unexpected end of the document");
    pg->has_items |= items;
    if (items) return cres__page_items(pg);
    if (meta) return cres__page_metadata(pg);
    if (kind) return cres__page_kind(pg);
    res = cres__json_check_value(&pg->c, 0, &ignored);
    return res == CRES_OK ? CRES_OK
                          : cres__json_syntax_error(&pg->c, res, CRES__PAGE_WHAT,
                                                    CRES_ERR_UNEXPECTED_RESPONSE, pg->err);
}

CRES__PRIVATE cres_result cres__k8s_read_page(cres__k8s *k, const char *body, size_t len,
                                              cres__pods *pods, char **next, cres_error *err) {
    cres__page pg;
    cres_result res = CRES_OK;
    memset(&pg, 0, sizeof pg);
    pg.k = k;
    pg.c.s = body;
    pg.c.n = len;
    pg.c.why = "";
    pg.pods = pods;
    pg.err = err;
    *next = NULL;
    if (!cres__page_expect(&pg, '{', "")) {
        cres__json whole; /* not an object: say why, as a syntax error or a wrong shape */
        res = cres__json_parse(&whole, body, len, &k->base.config.allocator, CRES__PAGE_WHAT,
                               CRES_ERR_UNEXPECTED_RESPONSE, err);
        cres__json_free(&whole);
        return res == CRES_OK ? cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                                           "kubernetes: pod list is not an object")
                              : res;
    }
    if (!cres__page_expect(&pg, '}', "")) {
        while ((res = cres__page_member(&pg)) == CRES_OK && !cres__page_expect(&pg, '}', "")) {
            if (!cres__page_expect(&pg, ',', "expected ',' or '}'")) {
                res = cres__page_bad(&pg, NULL);
                break;
            }
        }
    }
    if (res == CRES_OK && pg.c.pos != len)
        res = cres__page_bad(&pg, "unexpected text after the document");
    if (res == CRES_OK && !pg.has_items)
        res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                         "kubernetes: the answer has no \"items\": not a pod list");
    cres__free(&k->base.config.allocator, pg.tokens);
    if (res == CRES_OK) *next = pg.next;
    else cres__free(&k->base.config.allocator, pg.next);
    return res;
}

/* A failed HTTP status of `doing` ("listing pods") as an error, with the API's own Status
   message and what to do. */
CRES__PRIVATE cres_result cres__k8s_status_error(cres__k8s *k, const cres_http_response *resp,
                                                 const char *doing, cres_error *err) {
    char message[128];
    cres__error_message(&k->base, resp, NULL, 110, message, sizeof message); /* the Status's */
    if (resp->status == 401)
        cres_error_set(err, CRES_ERR_HTTP_STATUS,
                       "kubernetes: 401 Unauthorized%s; the bearer token was refused (check the "
                       "service account token)",
                       message);
    else if (resp->status == 403)
        cres_error_set(
            err, CRES_ERR_HTTP_STATUS,
            "kubernetes: 403 Forbidden%s; the service account needs verbs [\"list\"] on resources "
            "[\"pods\"] (a Role, or a ClusterRole for all namespaces)",
            message);
    else
        cres_error_set(err, CRES_ERR_HTTP_STATUS, "kubernetes: HTTP %d %s%s%s", resp->status, doing,
                       cres__redirect_note(resp->status), message);
    if (err) err->http_status = resp->status;
    return CRES_ERR_HTTP_STATUS;
}

/* The pod-list URL for one page of namespace ns (NULL = every namespace). */
CRES__PRIVATE char *cres__k8s_url(cres__k8s *k, const char *ns, const char *selector,
                                  const char *token) {
    cres__writer w;
    char *url = NULL;
    size_t need = 0;
    int pass;
    for (pass = 0; pass < 2; pass++) { /* measure, then write */
        cres__start(&w, url, need, NULL);
        cres__puts(&w, k->server);
        if (!ns) {
            cres__puts(&w, "/api/v1/pods");
        } else {
            cres__puts(&w, "/api/v1/namespaces/");
            cres__put_url_encoded(&w, ns);
            cres__puts(&w, "/pods");
        }
        cres__puts(&w, "?labelSelector=");
        cres__put_url_encoded(&w, selector);
        cres__puts(&w, "&limit=");
        cres__put_int(&w, k->page_size);
        if (token) {
            cres__puts(&w, "&continue=");
            cres__put_url_encoded(&w, token);
        }
        need = w.len + 1;
        if (!url && !(url = (char *)cres__alloc(&k->base.config.allocator, need))) return NULL;
    }
    url[w.len] = '\0';
    return url;
}

/* Lists every page of one selector in namespace ns (NULL = all) into pods; a 410 Gone (an
   expired continue token) starts the list again, up to three times. */
CRES__PRIVATE cres_result cres__k8s_list(cres__k8s *k, cres__http *h, cres__k8s_auth *au,
                                         const char *ns, const char *selector, cres__pods *pods,
                                         cres_error *err) {
    const cres_allocator *a = &k->base.config.allocator;
    size_t first = pods->count;
    char *token = NULL, *url, *next;
    int pages = 0, restarts = 0;
    cres_http_response resp;
    cres_result res;
    char q[CRES__QUOTE_SIZE];
    for (;;) {
        if (!(url = cres__k8s_url(k, ns, selector, token))) {
            res = cres__oom(err, "kubernetes");
            break;
        }
        res = cres__k8s_get(k, h, au, url, &resp, err);
        cres__free(a, url);
        if (res != CRES_OK) break;
        if (resp.status == 410 && token && restarts < 3) {
            cres__log(&k->base, CRES_LOG_INFO,
                      "kubernetes: continue token expired (410 Gone); listing again");
            cres__response_free(&k->base, &resp);
            cres__pods_truncate(a, pods, first);
            cres__free(a, token);
            token = NULL;
            restarts++;
            continue;
        }
        if (resp.status != 200) {
            res = cres__k8s_status_error(k, &resp, "listing pods", err);
            cres__response_free(&k->base, &resp);
            break;
        }
        res = cres__k8s_read_page(k, resp.body, resp.body_len, pods, &next, err);
        cres__response_free(&k->base, &resp);
        if (res == CRES_OK && next && token && strcmp(next, token) == 0)
            res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                             "kubernetes: the server sent the same continue token twice");
        if (res == CRES_OK && next && ++pages >= CRES_MAX_K8S_PAGES)
            res = cres__fail(err, CRES_ERR_LIMIT, "kubernetes: more than %d pages for selector %s",
                             CRES_MAX_K8S_PAGES, cres__quote_str(q, sizeof q, selector));
        cres__free(a, token);
        token = next;
        if (res != CRES_OK || !token) break;
    }
    cres__free(a, token);
    return res;
}

/* qsort's comparators see pointers to the items, which point to the pods. */
#define CRES__POD_PAIR(x, y)                                                                 \
    const cres__pod *p = *(cres__pod *const *)(x), *q = *(cres__pod *const *)(y)

CRES__PRIVATE int cres__cmp_pod_key(const void *x, const void *y) {
    CRES__POD_PAIR(x, y);
    int c = strcmp(CRES__POD(p, ns), CRES__POD(q, ns));
    return c ? c : strcmp(CRES__POD(p, name), CRES__POD(q, name));
}

/* A JobSet's Jobs go by job-global-index first (other pods all have -1). */
CRES__PRIVATE int cres__cmp_pod_name(const void *x, const void *y) {
    CRES__POD_PAIR(x, y);
    int c;
    if (p->global != q->global) return p->global < q->global ? -1 : 1;
    c = cres__natural_cmp(CRES__POD(p, name), CRES__POD(q, name));
    return c ? c : strcmp(CRES__POD(p, ns), CRES__POD(q, ns));
}

CRES__PRIVATE int cres__cmp_pod_index(const void *x, const void *y) {
    CRES__POD_PAIR(x, y);
    if (p->global != q->global) return p->global < q->global ? -1 : 1;
    if (p->index != q->index) return p->index < q->index ? -1 : 1;
    return cres__cmp_pod_name(x, y);
}

/* Drops pods listed twice (matched by two selectors) and terminating pods, then orders them:
   a JobSet's by job-global-index, then (every pod) by completion index when every pod has
   one, else by name, naturally. */
CRES__PRIVATE void cres__k8s_order(const cres_allocator *a, cres__pods *pods) {
    size_t i, kept = 0;
    int indexed = 1;
    if (pods->count == 0) return; /* qsort wants a non-NULL array */
    qsort(pods->items, pods->count, sizeof *pods->items, cres__cmp_pod_key);
    for (i = 0; i < pods->count; i++) {
        cres__pod *p = pods->items[i];
        if (p->terminating || (kept && cres__cmp_pod_key(&p, &pods->items[kept - 1]) == 0)) {
            cres__free(a, p);
            continue;
        }
        if (p->index < 0) indexed = 0;
        pods->items[kept++] = p;
    }
    pods->count = kept;
    qsort(pods->items, pods->count, sizeof *pods->items,
          indexed ? cres__cmp_pod_index : cres__cmp_pod_name);
}

/* "host:port" of a pod by the chosen address kind; NULL with *res set when it has none. */
CRES__PRIVATE char *cres__k8s_address(cres__k8s *k, const cres__pod *p, cres_result *res,
                                      cres_error *err) {
    const cres_allocator *a = &k->base.config.allocator;
    char q[CRES__QUOTE_SIZE], q2[CRES__QUOTE_SIZE];
    int by_node = k->address == CRES_K8S_HOST_IP;
    const char *host = by_node ? CRES__POD(p, host_ip) : CRES__POD(p, ip);
    const char *field = by_node ? "status.hostIP" : "status.podIP";
    char *s;
    if (k->address == CRES_K8S_DNS && CRES__POD(p, hostname) && CRES__POD(p, subdomain) &&
        *CRES__POD(p, hostname) && *CRES__POD(p, subdomain)) {
        size_t n = strlen(CRES__POD(p, hostname)) + strlen(CRES__POD(p, subdomain)) +
                   strlen(CRES__POD(p, ns)) + strlen(k->cluster_domain) + 32;
        if ((s = (char *)cres__alloc(a, n)) != NULL)
            snprintf(s, n, "%s.%s.%s.svc.%s:%d", CRES__POD(p, hostname), CRES__POD(p, subdomain),
                     CRES__POD(p, ns), k->cluster_domain, k->port);
        else *res = cres__oom(err, "kubernetes");
        return s;
    }
    if (!host || !*host) {
        *res =
            cres__fail(err, CRES_ERR_NOT_READY, "kubernetes: pod %s is Running but has no %s yet",
                       cres__quote_str(q, sizeof q, CRES__POD(p, name)), field);
        return NULL;
    }
    if (!cres__host_kind(host)) {
        *res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                          "kubernetes: pod %s has %s %s, not an IP address",
                          cres__quote_str(q, sizeof q, CRES__POD(p, name)), field,
                          cres__quote_str(q2, sizeof q2, host));
        return NULL;
    }
    if (!(s = cres__join_host_port(a, host, k->port))) *res = cres__oom(err, "kubernetes");
    return s;
}

/* Two pods of one Job with one completion index: the Job is replacing a pod. */
CRES__PRIVATE cres_result cres__k8s_duplicate(const cres__pod *o, const cres__pod *p,
                                              cres_error *err) {
    char q1[CRES__QUOTE_SIZE], q2[CRES__QUOTE_SIZE], of_job[48] = "";
    if (p->global >= 0) snprintf(of_job, sizeof of_job, " in job-global-index %d", p->global);
    return cres__fail(err, CRES_ERR_NOT_READY,
                      "kubernetes: pods %s and %s both have completion index %d%s",
                      cres__quote_str(q1, sizeof q1, CRES__POD(o, name)),
                      cres__quote_str(q2, sizeof q2, CRES__POD(p, name)), p->index, of_job);
}

/* In completion-index order, two pods of one namespace with one index mean the Job is
   replacing a pod: not ready yet (task ids would not match the indices). In a JobSet every
   Job counts from 0, so only pods of one Job (one job-global-index) are compared. */
CRES__PRIVATE cres_result cres__k8s_check_indices(const cres__pods *pods, cres_error *err) {
    size_t i, d;
    for (i = 0; i < pods->count; i++)
        if (pods->items[i]->index < 0) return CRES_OK; /* ordered by name: indices unused */
    for (i = 0; i < pods->count; i++) {
        const cres__pod *p = pods->items[i], *o;
        for (d = i; d-- > 0 && (o = pods->items[d])->index == p->index && o->global == p->global;)
            if (strcmp(CRES__POD(o, ns), CRES__POD(p, ns)) == 0)
                return cres__k8s_duplicate(o, p, err);
    }
    return CRES_OK;
}

/* Whether two pods are of one JobSet (its name and namespace), or both of none. */
CRES__PRIVATE int cres__k8s_same_jobset(const cres__pod *p, const cres__pod *q) {
    if (!CRES__POD(p, jobset) || !CRES__POD(q, jobset))
        return !CRES__POD(p, jobset) && !CRES__POD(q, jobset);
    return strcmp(CRES__POD(p, jobset), CRES__POD(q, jobset)) == 0 &&
           strcmp(CRES__POD(p, ns), CRES__POD(q, ns)) == 0;
}

/* " (JobSet "js" in ml)" or " (no JobSet)", for messages. */
CRES__PRIVATE const char *cres__k8s_jobset_note(const cres__pod *p, char *buf, size_t cap) {
    char q[CRES__QUOTE_SIZE];
    if (!CRES__POD(p, jobset)) return " (no JobSet)";
    cres__quote_str(q, sizeof q, CRES__POD(p, jobset));
    snprintf(buf, cap, " (JobSet %s in %.40s)", q, CRES__POD(p, ns));
    return buf;
}

/* One job's pods are of one JobSet, or of none: job-global-index orders the Jobs of one
   JobSet, but nothing orders two JobSets, or a JobSet and other pods, against each other. */
CRES__PRIVATE cres_result cres__k8s_check_jobset(const char *job, const cres__pods *pods,
                                                 cres_error *err) {
    char q1[CRES__QUOTE_SIZE], q2[CRES__QUOTE_SIZE], n1[160], n2[160];
    size_t i;
    for (i = 1; i < pods->count; i++) {
        const cres__pod *p = pods->items[0], *q = pods->items[i];
        if (cres__k8s_same_jobset(p, q)) continue;
        return cres__fail(err, CRES_ERR_CONFLICT,
                          "kubernetes: job \"%.40s\" mixes pod %s%s with pod %s%s; select one "
                          "JobSet (" CRES__K8S_JOBSET_KEY "=NAME) or none",
                          job, cres__quote_str(q1, sizeof q1, CRES__POD(p, name)),
                          cres__k8s_jobset_note(p, n1, sizeof n1),
                          cres__quote_str(q2, sizeof q2, CRES__POD(q, name)),
                          cres__k8s_jobset_note(q, n2, sizeof n2));
    }
    return CRES_OK;
}

/* Adds a job's pods as tasks 0..n-1, freeing each once added (so the spec does not add to
   the peak), and notes the own task (the pod named like this host) in *own_job / *own_index,
   for the resolve to set once it has succeeded. */
CRES__PRIVATE cres_result cres__k8s_add_job(cres__k8s *k, cres_cluster_spec *spec, const char *job,
                                            cres__pods *pods, const char **own_job, int *own_index,
                                            cres_error *err) {
    size_t i;
    cres_result res = CRES_OK;
    char q[CRES__QUOTE_SIZE];
    cres__job *j;
    if ((res = cres__k8s_check_jobset(job, pods, err)) != CRES_OK ||
        (res = cres__k8s_check_indices(pods, err)) != CRES_OK)
        return res;
    if ((res = cres__spec_job(spec, job, &j, err)) != CRES_OK) return res; /* an empty job too */
    for (i = 0; i < pods->count && res == CRES_OK; i++) {
        const cres__pod *p = pods->items[i];
        char *address;
        if (!p->running)
            return cres__fail(err, CRES_ERR_NOT_READY,
                              "kubernetes: pod %s (namespace %s) is %s, not Running",
                              cres__quote_str(q, sizeof q, CRES__POD(p, name)), CRES__POD(p, ns),
                              CRES__POD(p, phase) ? CRES__POD(p, phase) : "without a phase");
        if (!(address = cres__k8s_address(k, p, &res, err))) return res;
        res = cres_spec_add_task(spec, job, (int)i, address, err);
        cres__free(&k->base.config.allocator, address);
        if (res != CRES_OK)
            return cres__wrap(err, res, CRES_ERR_UNEXPECTED_RESPONSE, "kubernetes: ");
        if (p->own) {
            *own_job = job;
            *own_index = (int)i;
        }
        cres__free(&k->base.config.allocator, pods->items[i]); /* the task replaces the pod */
        pods->items[i] = NULL;
    }
    return res;
}

/* A label value the API server would store: 1..63 of [A-Za-z0-9-_.], a letter or digit at
   both ends. A JobSet name from a pod goes into a selector, where ',' or '!' would change it. */
CRES__PRIVATE int cres__k8s_label_value(const char *v) {
    CRES__BYTE_ALIGNED static const char alnum[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t n = strlen(v), i;
    if (n < 1 || n > 63 || !strchr(alnum, v[0]) || !strchr(alnum, v[n - 1])) return 0;
    for (i = 0; i < n; i++)
        if (!strchr(alnum, v[i]) && !strchr("-_.", v[i])) return 0;
    return 1;
}

/* Whether job j is listed by `selector` alone, in the resolver's one namespace. */
CRES__PRIVATE int cres__k8s_listed_by(const cres__k8s *k, size_t j, const char *selector) {
    size_t s, others = 0;
    for (s = 0; s < k->jobs_count; s++)
        if (strcmp(k->jobs[s].job, k->jobs[j].job) == 0)
            others += strcmp(k->jobs[s].selector, selector) != 0;
    return !k->all_namespaces && others == 0;
}

/* The own pod among a job's pods, or NULL (logged: the job then stands as it is). */
CRES__PRIVATE const cres__pod *cres__k8s_own_pod(cres__k8s *k, const char *job,
                                                 const cres__pods *pods) {
    char q[CRES__QUOTE_SIZE];
    size_t i;
    for (i = 0; i < pods->count; i++)
        if (pods->items[i]->own) return pods->items[i];
    cres__log(&k->base, CRES_LOG_INFO,
              "kubernetes: job \"%s\": the own pod (%s) is not among its pods; resolving its "
              "selectors alone, not following a JobSet",
              job, k->hostname ? cres__quote_str(q, sizeof q, k->hostname) : "no hostname");
    return NULL;
}

/* follow_jobset: when the own pod is among job j's pods and belongs to a JobSet, the job
   becomes that whole JobSet, listed by its label in the own pod's namespace in place of what
   the job's selectors found. The own pod is found in a list we make anyway, so this needs no
   RBAC verb beyond "list"; GET pods/$HOSTNAME would 404, since an Indexed Job pod is named
   "<job>-<index>-<random>" and only its spec.hostname is "<job>-<index>". */
CRES__PRIVATE cres_result cres__k8s_follow_jobset(cres__k8s *k, cres__http *h, cres__k8s_auth *au,
                                                  size_t j, cres__pods *pods, cres_error *err) {
    const cres_allocator *a = &k->base.config.allocator;
    const char *job = k->jobs[j].job;
    const cres__pod *own = cres__k8s_own_pod(k, job, pods);
    char *selector, *ns = NULL, q[CRES__QUOTE_SIZE], q2[CRES__QUOTE_SIZE];
    size_t n;
    cres_result res;
    if (!own) return CRES_OK;
    cres__quote_str(q, sizeof q, CRES__POD(own, name));
    if (!CRES__POD(own, jobset)) {
        cres__log(&k->base, CRES_LOG_INFO,
                  "kubernetes: job \"%s\": the own pod %s belongs to no JobSet", job, q);
        return CRES_OK;
    }
    if (!cres__k8s_label_value(CRES__POD(own, jobset)))
        return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                          "kubernetes: pod %s: " CRES__K8S_JOBSET_KEY " %s is not a label value", q,
                          cres__quote_str(q2, sizeof q2, CRES__POD(own, jobset)));
    n = sizeof CRES__K8S_JOBSET_KEY + strlen(CRES__POD(own, jobset)) + 1;
    if (!(selector = (char *)cres__alloc(a, n)) ||
        (k->all_namespaces && *CRES__POD(own, ns) && !(ns = cres__strdup(a, CRES__POD(own, ns))))) {
        cres__free(a, selector);
        return cres__oom(err, "kubernetes");
    }
    snprintf(selector, n, CRES__K8S_JOBSET_KEY "=%s", CRES__POD(own, jobset));
    res = CRES_OK;
    if (!cres__k8s_listed_by(k, j, selector)) { /* else the list in hand is the JobSet's */
        cres__log(&k->base, CRES_LOG_INFO,
                  "kubernetes: job \"%s\": the own pod %s belongs to JobSet %s; resolving the "
                  "whole JobSet (%s)",
                  job, q, cres__quote_str(q2, sizeof q2, CRES__POD(own, jobset)), selector);
        cres__pods_truncate(a, pods, 0); /* own points into it: not used after this */
        res = cres__k8s_list(k, h, au, k->all_namespaces ? ns : k->ns, selector, pods, err);
        if (res == CRES_OK) cres__k8s_order(a, pods);
    }
    cres__free(a, selector);
    cres__free(a, ns);
    return res;
}

#ifndef CLUSTER_RESOLVER_NO_K8S_JOB
/* ////////////////////////////////////////////////////////////////////////////////////////
   Kubernetes: members named from the own Job (and JobSet), without listing pods

   At job scale a list in every pod costs the API server N lists of N pods. But an Indexed
   Job names its pods: pod i has the hostname "<job>-<i>" (the Job controller sets it when the
   template has none, kubernetes pkg/controller/job) and, with the template's subdomain S (a
   headless Service S), the DNS name "<job>-<i>.S.<ns>.svc.<domain>". So one GET of the own
   Job names every member, and in a JobSet one GET of the JobSet names its other Jobs
   "<js>-<rjob>-<j>" (kubernetes-sigs/jobset, placement.GenJobName), in the list's order:
   replicated jobs in spec order and job index (job-global-index), then completion index.
   Members are what the Job defines, Running or not (JobSet's Service publishes not-ready
   addresses; the consumer's connect retries). When a condition does not hold, the log says
   which and the list answers. */

#define CRES__K8S_MAX_RJOBS 1024 /* replicated jobs of one JobSet */

/* What names the pods of a Job: its spec, or a replicated job's Job template. */
typedef struct cres__k8s_shape {
    int completions, parallelism; /* -1 = absent */
    int mode;                     /* the completionMode token; -1 = absent */
    int pod[2];                   /* the pod template's hostname and subdomain; -1 = absent */
} cres__k8s_shape;

/* The own Job, and what the answer must agree with. */
typedef struct cres__k8s_named {
    char job[64];            /* the own Job's name (part of a hostname: a DNS label) */
    int index;               /* this pod's completion index */
    const char *want_jobset; /* the selector is this JobSet's: the own Job must be of it */
    char subdomain[64];      /* the own Job's pods' */
    char jobset[64];         /* the JobSet of the own Job; "" = none */
    int completions;         /* the own Job's */
    char why[256];           /* set when the list must answer instead */
} cres__k8s_named;

CRES__PRIVATE int cres__json_blank(const cres__json *d, int v) {
    return v < 0 || cres__json_is_null(d, v) ||
           (cres__json_is(d, v, JSMN_STRING) && d->t[v].end == d->t[v].start);
}

/* A DNS label as Kubernetes validates hostnames and subdomains (RFC 1123): 1 to 63 of
   [a-z0-9-], a letter or digit at both ends. */
CRES__PRIVATE int cres__k8s_dns_label(const char *s, size_t n) {
    size_t i;
    if (n < 1 || n > 63 || s[0] == '-' || s[n - 1] == '-') return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return 0;
    return 1;
}

/* Token v as a count 0..INT_MAX in *out, -1 when absent or null. The API server validates
   these, so anything else is an error naming the field. */
CRES__PRIVATE cres_result cres__k8s_count(const cres__json *d, int v, const char *what,
                                         const char *field, int *out, cres_error *err) {
    char why[128];
    *out = -1;
    if (v < 0 || cres__json_is_null(d, v) || cres__json_index(d, v, 0, out, why, sizeof why))
        return CRES_OK;
    return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE, "kubernetes: %s: %s %s", what, field,
                      why);
}

/* Reads a Job spec (the own Job's, or a replicated job's template, with the defaults that
   batch/v1 SetDefaults_Job gives it when the Job is made). */
CRES__PRIVATE cres_result cres__k8s_shape_read(const cres__json *d, int spec, const char *what,
                                              int defaults, cres__k8s_shape *s,
                                              cres_error *err) {
    int v[4];
    cres_result res;
    cres__json_pick_packed(d, spec, "completions\0parallelism\0completionMode\0template", v, 4);
    if ((res = cres__k8s_count(d, v[0], what, "completions", &s->completions, err)) != CRES_OK ||
        (res = cres__k8s_count(d, v[1], what, "parallelism", &s->parallelism, err)) != CRES_OK)
        return res;
    if (defaults && s->parallelism < 0) {
        s->parallelism = 1;
        if (s->completions < 0) s->completions = 1;
    }
    s->mode = v[2];
    cres__json_pick_packed(d, cres__json_dig(d, v[3], "spec", 1), "hostname\0subdomain", s->pod,
                           2);
    return CRES_OK;
}

/* Whether every pod of a shape is there to be named; else why, in plain words. */
CRES__PRIVATE int cres__k8s_shape_ok(const cres__json *d, const cres__k8s_shape *s,
                                     const char *what, char *why, size_t cap) {
    char q[CRES__QUOTE_SIZE];
    if (s->mode < 0 || !cres__json_eq(d, s->mode, "Indexed"))
        snprintf(why, cap, "%s is not Indexed (completionMode %s)", what,
                 s->mode < 0 ? "unset" : cres__json_quote(d, s->mode, q, sizeof q));
    else if (s->completions < 0) snprintf(why, cap, "%s has no completions", what);
    else if (s->parallelism != s->completions) /* elastic: not every member runs */
        snprintf(why, cap, "%s: parallelism %d != completions %d", what, s->parallelism,
                 s->completions);
    else if (!cres__json_blank(d, s->pod[0])) /* every pod would have that one name */
        snprintf(why, cap, "%s: the pod template sets hostname %s", what,
                 cres__json_quote(d, s->pod[0], q, sizeof q));
    else return 1;
    return 0;
}

/* The own Job: $HOSTNAME "<job>-<i>" less "-$JOB_COMPLETION_INDEX"; 0 with why. */
CRES__PRIVATE int cres__k8s_own_job(const cres__k8s *k, cres__k8s_named *nm) {
    const char *host = k->hostname, *ix = k->completion_index;
    char q[CRES__QUOTE_SIZE];
    size_t hn, in;
    long long v;
    if (!ix || !*ix) {
        snprintf(nm->why, sizeof nm->why, "JOB_COMPLETION_INDEX is unset (not an Indexed Job's "
                                          "pod)");
        return 0;
    }
    in = strlen(ix);
    if (cres__parse_decimal(ix, in, &v) != 1 || v < 0 || v > INT_MAX || (in > 1 && *ix == '0')) {
        snprintf(nm->why, sizeof nm->why, "JOB_COMPLETION_INDEX %s is not an index",
                 cres__quote(q, sizeof q, ix, in));
        return 0;
    }
    hn = host ? strlen(host) : 0;
    if (hn < in + 2 || hn - in - 1 >= sizeof nm->job || host[hn - in - 1] != '-' ||
        strcmp(host + hn - in, ix) != 0) {
        snprintf(nm->why, sizeof nm->why, "HOSTNAME %s is not \"<job>-%s\"",
                 host ? cres__quote(q, sizeof q, host, hn) : "(unset)", ix);
        return 0;
    }
    memcpy(nm->job, host, hn - in - 1);
    nm->job[hn - in - 1] = '\0';
    nm->index = (int)v;
    return 1;
}

/* The value of a selector that is exactly "key=value" or "key==value", else NULL. */
CRES__PRIVATE const char *cres__k8s_selects(const char *selector, const char *key) {
    size_t n = strlen(key);
    if (strncmp(selector, key, n) != 0 || selector[n] != '=') return NULL;
    selector += selector[n + 1] == '=' ? n + 2 : n + 1;
    return strpbrk(selector, ",!=() ") ? NULL : selector;
}

/* Does the job's selector agree with the own Job? A selector of one Job must name it; one
   of a JobSet makes the whole JobSet the answer. Other selectors are not compared. */
CRES__PRIVATE int cres__k8s_selector_agrees(const cres__k8s *k, cres__k8s_named *nm) {
    const char *sel = k->jobs[0].selector, *v = cres__k8s_selects(sel, "job-name");
    char q[CRES__QUOTE_SIZE];
    if (!v) v = cres__k8s_selects(sel, "batch.kubernetes.io/job-name");
    nm->want_jobset = cres__k8s_selects(sel, CRES__K8S_JOBSET_KEY);
    if (!v || strcmp(v, nm->job) == 0) return 1;
    snprintf(nm->why, sizeof nm->why, "the selector names Job %s, this pod's Job is \"%s\"",
             cres__quote_str(q, sizeof q, v), nm->job);
    return 0;
}

typedef struct cres__k8s_object_ref {
    const cres__k8s *k;
    const char *api, *resource, *name;
} cres__k8s_object_ref;

CRES__PRIVATE void cres__put_k8s_object_url(cres__writer *w, const void *x) {
    const cres__k8s_object_ref *o = (const cres__k8s_object_ref *)x;
    cres__puts(w, o->k->server);
    cres__puts(w, o->api);
    cres__puts(w, "/namespaces/");
    cres__put_url_encoded(w, o->k->ns);
    cres__put(w, "/", 1);
    cres__puts(w, o->resource);
    cres__put(w, "/", 1);
    cres__put_url_encoded(w, o->name);
}

/* GETs one object of the own namespace and parses it into *d (which points into *resp).
   CRES_OK with nm->why set when it is forbidden or not there: then the list answers. */
CRES__PRIVATE cres_result cres__k8s_get_object(cres__k8s *k, cres__http *h, cres__k8s_auth *au,
                                               const cres__k8s_object_ref *o,
                                               cres_http_response *resp, cres__json *d,
                                               cres__k8s_named *nm, cres_error *err) {
    const cres_allocator *a = &k->base.config.allocator;
    char *url = cres__render(a, cres__put_k8s_object_url, o), what[128], q[CRES__QUOTE_SIZE];
    int v;
    cres_result res;
    memset(d, 0, sizeof *d);
    memset(resp, 0, sizeof *resp);
    if (!url) return cres__oom(err, "kubernetes");
    res = cres__k8s_get(k, h, au, url, resp, err);
    cres__free(a, url);
    cres__quote_str(q, sizeof q, o->name);
    snprintf(what, sizeof what, "getting %s %s", o->resource, q);
    if (res != CRES_OK) return res;
    if (resp->status == 403 || resp->status == 404) {
        snprintf(nm->why, sizeof nm->why, "%s: %s", what,
                 resp->status == 403 ? "forbidden (403: the role grants no \"get\" on it)"
                                     : "not found (404)");
        return CRES_OK;
    }
    if (resp->status != 200) return cres__k8s_status_error(k, resp, what, err);
    snprintf(what, sizeof what, "kubernetes: %s %s", o->resource, q);
    res = cres__json_parse(d, resp->body, resp->body_len, a, what, CRES_ERR_UNEXPECTED_RESPONSE,
                           err);
    if (res != CRES_OK) return res;
    v = cres__json_dig(d, 0, "metadata\0name", 2);
    if (v < 0 || !cres__json_eq(d, v, o->name))
        return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                          "%s: the answer is not that object (metadata.name %s)", what,
                          v < 0 ? "absent" : cres__json_quote(d, v, q, sizeof q));
    return CRES_OK;
}

/* Tasks first.. of the job: "<prefix>-<i>.<subdomain>.<ns>.svc.<domain>:<port>" for each
   completion index i of one Job. */
CRES__PRIVATE cres_result cres__k8s_add_named(cres__k8s *k, cres_cluster_spec *spec,
                                              const char *prefix, const char *sub, int first,
                                              int count, cres_error *err) {
    size_t cap = 2 * 64 + strlen(k->ns) + strlen(k->cluster_domain) + 32; /* labels <= 63 */
    char *buf = (char *)cres__alloc(&k->base.config.allocator, cap);
    cres_result res = buf ? CRES_OK : cres__oom(err, "kubernetes");
    int i;
    for (i = 0; i < count && res == CRES_OK; i++) {
        snprintf(buf, cap, "%s-%d.%s.%s.svc.%s:%d", prefix, i, sub, k->ns, k->cluster_domain,
                 k->port);
        if ((res = cres_spec_add_task(spec, k->jobs[0].job, first + i, buf, err)) != CRES_OK)
            res = cres__wrap(err, res, CRES_ERR_UNEXPECTED_RESPONSE, "kubernetes: ");
    }
    cres__free(&k->base.config.allocator, buf);
    return res;
}

/* Decimal digits of v >= 0. */
CRES__PRIVATE size_t cres__digits(long long v) {
    size_t n = 1;
    while (v >= 10) v /= 10, n++;
    return n;
}

/* Reads the own Job: whether its pods can be named (else nm->why), their subdomain and
   count, and the JobSet it is of. */
CRES__PRIVATE cres_result cres__k8s_read_own_job(const cres__json *d, cres__k8s_named *nm,
                                                 cres_error *err) {
    char what[96], q[CRES__QUOTE_SIZE];
    const char *key = CRES__K8S_JOBSET_KEY;
    cres__k8s_shape s;
    int js, sub;
    size_t n;
    cres_result res;
    snprintf(what, sizeof what, "Job \"%s\"", nm->job);
    res = cres__k8s_shape_read(d, cres__json_dig(d, 0, "spec", 1), what, 0, &s, err);
    if (res != CRES_OK || !cres__k8s_shape_ok(d, &s, what, nm->why, sizeof nm->why)) return res;
    if (s.completions > CRES_MAX_K8S_PODS)
        return cres__fail(err, CRES_ERR_LIMIT, "kubernetes: %s has %d completions, more than %d",
                          what, s.completions, CRES_MAX_K8S_PODS);
    if (nm->index >= s.completions)
        return cres__fail(err, CRES_ERR_CONFLICT,
                          "kubernetes: JOB_COMPLETION_INDEX %d is not below the completions of "
                          "%s (%d)",
                          nm->index, what, s.completions);
    sub = s.pod[1];
    n = sub >= 0 ? (size_t)(d->t[sub].end - d->t[sub].start) : 0;
    if (cres__json_blank(d, sub))
        snprintf(nm->why, sizeof nm->why, "%s has no subdomain (spec.template.spec.subdomain)",
                 what);
    else if (!cres__json_is(d, sub, JSMN_STRING) || !cres__k8s_dns_label(d->s + d->t[sub].start, n))
        snprintf(nm->why, sizeof nm->why, "%s: subdomain %s is not a DNS label", what,
                 cres__json_quote(d, sub, q, sizeof q));
    else if (strlen(nm->job) + 1 + cres__digits(s.completions - 1) > 63 ||
             !cres__k8s_dns_label(nm->job, strlen(nm->job)))
        snprintf(nm->why, sizeof nm->why, "%s: hostname \"%s-%d\" is not a DNS label", what,
                 nm->job, s.completions - 1);
    if (*nm->why) return CRES_OK;
    memcpy(nm->subdomain, d->s + d->t[sub].start, n);
    nm->subdomain[n] = '\0';
    nm->completions = s.completions;
    cres__json_pick(d, cres__json_dig(d, 0, "metadata\0labels", 2), &key, &js, 1);
    if (!cres__json_blank(d, js)) {
        n = (size_t)(d->t[js].end - d->t[js].start);
        if (!cres__json_is(d, js, JSMN_STRING) || !cres__k8s_dns_label(d->s + d->t[js].start, n))
            snprintf(nm->why, sizeof nm->why, "%s: its label " CRES__K8S_JOBSET_KEY " %s is not "
                     "a JobSet name", what, cres__json_quote(d, js, q, sizeof q));
        else memcpy(nm->jobset, d->s + d->t[js].start, n);
    }
    if (!*nm->why && nm->want_jobset && strcmp(nm->want_jobset, nm->jobset) != 0)
        snprintf(nm->why, sizeof nm->why, "%s is not of JobSet %s (the selector's)", what,
                 cres__quote_str(q, sizeof q, nm->want_jobset));
    return CRES_OK;
}

/* One replicated job of a JobSet: its name (in d), Jobs and pods per Job. */
typedef struct cres__k8s_rjob {
    const char *name;
    int name_len, replicas, completions;
} cres__k8s_rjob;

/* Reads replicated job e; nm->why when its pods cannot be named. */
CRES__PRIVATE cres_result cres__k8s_rjob_read(const cres__json *d, int e, cres__k8s_named *nm,
                                              cres__k8s_rjob *rj, cres_error *err) {
    char what[160], q[CRES__QUOTE_SIZE], host[160];
    cres__k8s_shape s;
    int v[3];
    cres_result res;
    cres__json_pick_packed(d, e, "name\0replicas\0template", v, 3);
    if (!cres__json_is(d, v[0], JSMN_STRING))
        return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                          "kubernetes: JobSet \"%s\": a replicated job without a name", nm->jobset);
    rj->name = d->s + d->t[v[0]].start;
    rj->name_len = d->t[v[0]].end - d->t[v[0]].start;
    snprintf(what, sizeof what, "replicated job %s of JobSet \"%s\"",
             cres__json_quote(d, v[0], q, sizeof q), nm->jobset);
    if ((res = cres__k8s_count(d, v[1], what, "replicas", &rj->replicas, err)) != CRES_OK ||
        (res = cres__k8s_shape_read(d, cres__json_dig(d, v[2], "spec", 1), what, 1, &s, err)) !=
            CRES_OK ||
        !cres__k8s_shape_ok(d, &s, what, nm->why, sizeof nm->why))
        return res;
    if (rj->replicas < 0) rj->replicas = 1; /* the CRD's default */
    rj->completions = s.completions;
    snprintf(host, sizeof host, "%s-%.*s-%d-%d", nm->jobset, rj->name_len < 64 ? rj->name_len : 64,
             rj->name, rj->replicas ? rj->replicas - 1 : 0, s.completions ? s.completions - 1 : 0);
    if (rj->name_len >= 64 || !cres__k8s_dns_label(host, strlen(host)))
        snprintf(nm->why, sizeof nm->why, "%.120s: hostname \"%.100s\" is not a DNS label", what,
                 host);
    return CRES_OK;
}

/* Whether a replicated job before element e has rj's name (the CRD keys them by name; the
   names were checked to be DNS labels, so they compare as written). */
CRES__PRIVATE int cres__k8s_rjob_twice(const cres__json *d, int rjobs, int e,
                                       const cres__k8s_rjob *rj) {
    const char *key = "name";
    int f, v;
    for (f = rjobs + 1; f < e; f = cres__json_next(d, f)) {
        cres__json_pick(d, f, &key, &v, 1);
        if (v >= 0 && d->t[v].end - d->t[v].start == rj->name_len &&
            memcmp(d->s + d->t[v].start, rj->name, (size_t)rj->name_len) == 0)
            return 1;
    }
    return 0;
}

/* Whether the own Job is Job j of replicated job rj: its name is "<js>-<rj>-<j>". */
CRES__PRIVATE int cres__k8s_own_in(const cres__k8s_named *nm, const cres__k8s_rjob *rj, int *j) {
    size_t js = strlen(nm->jobset), at = js + (size_t)rj->name_len + 2, n = strlen(nm->job);
    long long v;
    if (n <= at || strncmp(nm->job, nm->jobset, js) != 0 || nm->job[js] != '-' ||
        strncmp(nm->job + js + 1, rj->name, (size_t)rj->name_len) != 0 || nm->job[at - 1] != '-')
        return 0;
    if (cres__parse_decimal(nm->job + at, n - at, &v) != 1 || v < 0 || v >= rj->replicas ||
        (n - at > 1 && nm->job[at] == '0'))
        return 0;
    *j = (int)v;
    return 1;
}

/* The JobSet's network: the own Job's subdomain must be the JobSet's (network.subdomain,
   else its name), with DNS hostnames on. */
CRES__PRIVATE void cres__k8s_jobset_network(const cres__json *d, cres__k8s_named *nm) {
    char q[CRES__QUOTE_SIZE];
    int v[2], n;
    cres__json_pick_packed(d, cres__json_dig(d, 0, "spec\0network", 2),
                           "enableDNSHostnames\0subdomain", v, 2);
    if (cres__json_is(d, v[0], JSMN_PRIMITIVE) && d->s[d->t[v[0]].start] == 'f')
        snprintf(nm->why, sizeof nm->why, "JobSet \"%s\" has DNS hostnames off "
                 "(spec.network.enableDNSHostnames false)", nm->jobset);
    else if (cres__json_blank(d, v[1]) ? strcmp(nm->subdomain, nm->jobset) != 0
                                       : !cres__json_eq(d, v[1], nm->subdomain)) {
        n = cres__json_blank(d, v[1]) ? 0 : 1;
        snprintf(nm->why, sizeof nm->why, "Job \"%s\" has subdomain \"%s\", JobSet \"%s\" %s",
                 nm->job, nm->subdomain, nm->jobset,
                 n ? cres__json_quote(d, v[1], q, sizeof q) : "its name");
    }
}

/* Checks every replicated job and finds the own Job's first task (*own); nm->why when the
   JobSet cannot be named whole. */
CRES__PRIVATE cres_result cres__k8s_jobset_check(const cres__json *d, int rjobs,
                                                 cres__k8s_named *nm, int *own,
                                                 cres_error *err) {
    long long total = 0;
    int i, e, j;
    cres__k8s_rjob rj;
    cres_result res;
    *own = -1;
    if (d->t[rjobs].size > CRES__K8S_MAX_RJOBS) /* and so the check for names given twice */
        return cres__fail(err, CRES_ERR_LIMIT, "kubernetes: JobSet \"%s\" has more than %d "
                          "replicated jobs", nm->jobset, CRES__K8S_MAX_RJOBS);
    for (i = 0, e = rjobs + 1; i < d->t[rjobs].size; i++, e = cres__json_next(d, e)) {
        if ((res = cres__k8s_rjob_read(d, e, nm, &rj, err)) != CRES_OK || *nm->why) return res;
        if (cres__k8s_rjob_twice(d, rjobs, e, &rj)) /* its pods' names would be too */
            return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE, "kubernetes: JobSet \"%s\": "
                              "replicated job \"%.*s\" is there twice", nm->jobset,
                              rj.name_len, rj.name);
        if (total + (long long)rj.replicas * rj.completions > CRES_MAX_K8S_PODS)
            return cres__fail(err, CRES_ERR_LIMIT, "kubernetes: JobSet \"%s\" has more than %d "
                              "pods", nm->jobset, CRES_MAX_K8S_PODS);
        if (cres__k8s_own_in(nm, &rj, &j)) {
            if (rj.completions != nm->completions) {
                snprintf(nm->why, sizeof nm->why, "Job \"%s\" has completions %d, its replicated "
                         "job %d", nm->job, nm->completions, rj.completions);
                return CRES_OK;
            }
            *own = (int)(total + (long long)j * rj.completions);
        }
        total += (long long)rj.replicas * rj.completions;
    }
    if (*own < 0)
        snprintf(nm->why, sizeof nm->why, "Job \"%s\" is not one of JobSet \"%s\"'s Jobs", nm->job,
                 nm->jobset);
    return CRES_OK;
}

/* Adds every member of the JobSet, Job by Job in job-global-index order. */
CRES__PRIVATE cres_result cres__k8s_jobset_add(cres__k8s *k, const cres__json *d, int rjobs,
                                               cres__k8s_named *nm, cres_cluster_spec *spec,
                                               cres_error *err) {
    char prefix[80];
    int i, e, j, task = 0;
    cres__k8s_rjob rj;
    cres_result res = CRES_OK;
    for (i = 0, e = rjobs + 1; i < d->t[rjobs].size && res == CRES_OK; i++) {
        if ((res = cres__k8s_rjob_read(d, e, nm, &rj, err)) != CRES_OK) break;
        for (j = 0; j < rj.replicas && res == CRES_OK; j++, task += rj.completions) {
            snprintf(prefix, sizeof prefix, "%s-%.*s-%d", nm->jobset, rj.name_len, rj.name, j);
            res = cres__k8s_add_named(k, spec, prefix, nm->subdomain, task, rj.completions, err);
        }
        e = cres__json_next(d, e);
    }
    return res;
}

/* The members of the JobSet named nm->jobset; *own = the own Job's first task. */
CRES__PRIVATE cres_result cres__k8s_named_jobset(cres__k8s *k, cres__http *h, cres__k8s_auth *au,
                                                 cres__k8s_named *nm, cres_cluster_spec *spec,
                                                 int *own, cres_error *err) {
    cres__k8s_object_ref o;
    cres_http_response resp;
    cres__json d;
    int rjobs;
    cres_result res;
    o.k = k;
    o.api = "/apis/jobset.x-k8s.io/v1alpha2";
    o.resource = "jobsets";
    o.name = nm->jobset;
    res = cres__k8s_get_object(k, h, au, &o, &resp, &d, nm, err);
    if (res == CRES_OK && !*nm->why) cres__k8s_jobset_network(&d, nm);
    rjobs = res == CRES_OK ? cres__json_dig(&d, 0, "spec\0replicatedJobs", 2) : -1;
    if (res == CRES_OK && !*nm->why && !cres__json_is(&d, rjobs, JSMN_ARRAY))
        res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                         "kubernetes: JobSet \"%s\": spec.replicatedJobs is not a list",
                         nm->jobset);
    if (res == CRES_OK && !*nm->why) res = cres__k8s_jobset_check(&d, rjobs, nm, own, err);
    if (res == CRES_OK && !*nm->why) res = cres__k8s_jobset_add(k, &d, rjobs, nm, spec, err);
    cres__json_free(&d);
    cres__response_free(&k->base, &resp);
    return res;
}

/* Members JOB: names the members of the own Job, or of its JobSet when the job follows
   JobSets or its selector is the JobSet's. *named = 0 (logged, with why) when the list
   must answer instead. */
CRES__PRIVATE cres_result cres__k8s_named_members(cres__k8s *k, cres__http *h, cres__k8s_auth *au,
                                                  cres_cluster_spec *spec, const char **own_job,
                                                  int *own_index, int *named, cres_error *err) {
    cres__k8s_named nm;
    cres__k8s_object_ref o;
    cres_http_response resp;
    cres__json d;
    int own = 0, whole;
    cres_result res = CRES_OK;
    memset(&nm, 0, sizeof nm);
    *named = 0;
    if (cres__k8s_own_job(k, &nm) && cres__k8s_selector_agrees(k, &nm)) {
        o.k = k;
        o.api = "/apis/batch/v1";
        o.resource = "jobs";
        o.name = nm.job;
        res = cres__k8s_get_object(k, h, au, &o, &resp, &d, &nm, err);
        if (res == CRES_OK && !*nm.why) res = cres__k8s_read_own_job(&d, &nm, err);
        cres__json_free(&d);
        cres__response_free(&k->base, &resp);
    }
    whole = *nm.jobset && (k->follow_jobset || nm.want_jobset); /* the JobSet is the answer */
    if (res == CRES_OK && !*nm.why)
        res = whole ? cres__k8s_named_jobset(k, h, au, &nm, spec, &own, err)
                    : cres__k8s_add_named(k, spec, nm.job, nm.subdomain, 0, nm.completions, err);
    if (res != CRES_OK) return res;
    if (*nm.why) {
        cres__log(&k->base, CRES_LOG_INFO, "kubernetes: job \"%s\": listing pods, since %s",
                  k->jobs[0].job, nm.why);
        return CRES_OK;
    }
    cres__log(&k->base, CRES_LOG_INFO,
              "kubernetes: job \"%s\": %zu members named from %s \"%s\" (subdomain \"%s\")",
              k->jobs[0].job, cres_spec_tasks_count(spec, k->jobs[0].job),
              whole ? "JobSet" : "Job", whole ? nm.jobset : nm.job, nm.subdomain);
    *named = 1;
    *own_job = k->jobs[0].job;
    *own_index = own + nm.index;
    return CRES_OK;
}
#endif /* CLUSTER_RESOLVER_NO_K8S_JOB */

CRES__PRIVATE cres_result cres__k8s_resolve_once(cres__k8s *k, cres_cluster_spec **out,
                                                 cres_error *err) {
    const cres_allocator *a = &k->base.config.allocator;
    /* set once at the end: a pod in two jobs must not churn the getter's string */
    const char *own_job = NULL;
    int own_index = -1, named = 0;
    cres__pods pods;
    cres__http h;
    cres__k8s_auth au;
    size_t i, s;
    cres_result res;
    memset(&pods, 0, sizeof pods);
    if ((res = cres__http_begin(&h, &k->base, err)) != CRES_OK) return res;
    res = cres__k8s_auth_begin(k, &h, &au, err);
    if (res == CRES_OK) res = cres_spec_create(a, out, err);
#ifndef CLUSTER_RESOLVER_NO_K8S_JOB
    if (res == CRES_OK && k->members == CRES_K8S_MEMBERS_JOB)
        res = cres__k8s_named_members(k, &h, &au, *out, &own_job, &own_index, &named, err);
#endif
    for (i = 0; i < k->jobs_count && res == CRES_OK && !named; i++) {
        const char *job = k->jobs[i].job;
        for (s = 0; s < i && strcmp(k->jobs[s].job, job) != 0; s++) {}
        if (s < i) continue; /* this job's selectors were listed with its first entry */
        for (s = i; s < k->jobs_count && res == CRES_OK; s++)
            if (strcmp(k->jobs[s].job, job) == 0)
                res = cres__k8s_list(k, &h, &au, k->all_namespaces ? NULL : k->ns,
                                     k->jobs[s].selector, &pods, err);
        if (res == CRES_OK) cres__k8s_order(a, &pods);
        if (res == CRES_OK && k->follow_jobset)
            res = cres__k8s_follow_jobset(k, &h, &au, i, &pods, err);
        if (res == CRES_OK) res = cres__k8s_add_job(k, *out, job, &pods, &own_job, &own_index, err);
        cres__pods_truncate(a, &pods, 0);
    }
    if (res == CRES_OK && own_job) res = cres_set_detected_task(&k->base, own_job, own_index, err);
    cres__log(&k->base, CRES_LOG_DEBUG, "kubernetes: %d requests", h.requests);
    cres__http_end(&h);
    cres__free(a, pods.items);
    cres__k8s_auth_end(k, &au);
    return res;
}

CRES__PRIVATE cres_result cres__k8s_resolve(cres_resolver *r, cres_cluster_spec **out,
                                            cres_error *err) {
    cres__k8s *k = (cres__k8s *)r;
    long long deadline = cres__now_ms() + k->wait_ms;
    int pause = 500;
    for (;;) {
        cres_result res = cres__k8s_resolve_once(k, out, err);
        if (res == CRES_OK || res != CRES_ERR_NOT_READY || k->wait_ms <= 0) return res;
        cres_spec_free(*out);
        *out = NULL;
        if (cres__now_ms() + pause > deadline)
            return cres__wrap(err, res, CRES_OK, "after waiting: ");
        cres__log(r, CRES_LOG_INFO, "%s; waiting %d ms",
                  err ? err->message : "kubernetes: not ready", pause);
        cres__sleep(r, pause);
        pause = pause < 2500 ? pause * 2 : 5000; /* 0.5, 1, 2, 4, 5, 5... s */
    }
}

CRES__PRIVATE void cres__k8s_destroy(cres_resolver *r) {
    cres__k8s *k = (cres__k8s *)r;
    const cres_allocator *a = &r->config.allocator;
    size_t i;
    for (i = 0; i < k->jobs_count; i++) {
        cres__free(a, k->jobs[i].job);
        cres__free(a, k->jobs[i].selector);
    }
    cres__free(a, k->jobs);
    cres__free(a, k->server);
    cres__free(a, k->token);
    cres__free(a, k->token_file);
    cres__free(a, k->ca_file);
    cres__free(a, k->ns);
    cres__free(a, k->hostname);
    cres__free(a, k->completion_index);
    cres__free(a, k->cluster_domain);
#ifndef CLUSTER_RESOLVER_NO_KUBECONFIG
    cres__kube_free(k);
#endif
}

CRES__BYTE_ALIGNED static const char cres__k8s_vtable_name[] = "kubernetes";
static const cres_resolver_vtable cres__k8s_vtable = {
    cres__k8s_vtable_name, cres__k8s_resolve, NULL, NULL, cres__k8s_destroy, NULL, NULL};

CRES__PRIVATE cres_result cres__k8s_copy_jobs(cres__k8s *k, const cres_k8s_options *o,
                                              cres_error *err) {
    static const cres_k8s_job_selector tf_default = {"worker", "job-name=tensorflow"};
    const cres_k8s_job_selector *jobs = o->jobs_count ? o->jobs : &tf_default;
    size_t i, n = o->jobs_count ? o->jobs_count : 1;
    const cres_allocator *a = &k->base.config.allocator;
    cres_result res;
    if (!o->jobs_count != !o->jobs)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "kubernetes: options.jobs and options.jobs_count: set both, or neither");
    k->jobs = (cres_k8s_job_selector *)cres__alloc(a, n * sizeof *k->jobs);
    if (!k->jobs) return cres__oom(err, "kubernetes");
    memset(k->jobs, 0, n * sizeof *k->jobs);
    k->jobs_count = n;
    for (i = 0; i < n; i++) {
        if ((res = cres__check_job_name(jobs[i].job, err)) != CRES_OK)
            return cres__wrap(err, res, CRES_OK, "kubernetes: ");
        if (!jobs[i].selector)
            return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                              "kubernetes: job \"%s\" has a NULL selector", jobs[i].job);
        if (!cres__opt_copy(a, (char **)&k->jobs[i].job, jobs[i].job) ||
            !cres__opt_copy(a, (char **)&k->jobs[i].selector, jobs[i].selector))
            return cres__oom(err, "kubernetes");
    }
    return CRES_OK;
}

/* Where the API server is: options.server, else a kubeconfig (client-go's order), else the
   in-cluster service variables. */
CRES__PRIVATE cres_result cres__k8s_server(cres__k8s *k, const cres_k8s_options *o,
                                           cres_error *err) {
    const cres_allocator *a = &k->base.config.allocator;
    const char *host, *port;
    size_t n;
    cres_result res;
    if (o->server) {
        if (strncmp(o->server, "http://", 7) != 0 && strncmp(o->server, "https://", 8) != 0)
            return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                              "kubernetes: server must start with http:// or https://");
        return cres__url_copy(a, &k->server, o->server) ? CRES_OK : cres__oom(err, "kubernetes");
    }
#ifndef CLUSTER_RESOLVER_NO_KUBECONFIG
    if ((res = cres__kube_load(k, o, err)) != CRES_ERR_NOT_FOUND) return res;
#else
    if (o->kubeconfig || o->context)
        return cres__fail(err, CRES_ERR_UNSUPPORTED, "kubernetes: kubeconfig files are left out "
                          "of this build by CLUSTER_RESOLVER_NO_KUBECONFIG");
    (void)res;
#endif
    host = cres_resolver_getenv(&k->base, "KUBERNETES_SERVICE_HOST");
    port = cres_resolver_getenv(&k->base, "KUBERNETES_SERVICE_PORT");
    if (!host || !*host || !port || !*port)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "kubernetes: no kubeconfig ($KUBECONFIG, ~/.kube/config) and not inside "
                          "a cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT unset); "
                          "pass options.kubeconfig or options.server");
    if (strlen(host) > 256 || strlen(port) > 5 || cres__bad_text(host, 1) ||
        strspn(port, cres__decimal_digits) != strlen(port) || atol(port) < 1 || atol(port) > 65535)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "kubernetes: KUBERNETES_SERVICE_HOST or _PORT is malformed");
    n = strlen(host) + strlen(port) + 16;
    if (!(k->server = (char *)cres__alloc(a, n))) return cres__oom(err, "kubernetes");
    snprintf(k->server, n, strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s", host, port);
    if (!o->token && !o->token_file && !cres__opt_copy(a, &k->token_file, CRES__K8S_SA_DIR "token"))
        return cres__oom(err, "kubernetes");
    if (!o->ca_file && !cres__opt_copy(a, &k->ca_file, CRES__K8S_SA_DIR "ca.crt"))
        return cres__oom(err, "kubernetes");
    return CRES_OK;
}

/* The namespace: options, else the service account's namespace file in a cluster, else
   "default". */
CRES__PRIVATE cres_result cres__k8s_namespace(cres__k8s *k, const cres_k8s_options *o,
                                              cres_error *err) {
    const cres_allocator *a = &k->base.config.allocator;
    const char *file = o->namespace_file ? o->namespace_file
                       : o->server       ? NULL
                                         : CRES__K8S_SA_DIR "namespace";
    if (o->namespace_name)
        return cres__opt_copy(a, &k->ns, o->namespace_name) ? CRES_OK
                                                            : cres__oom(err, "kubernetes");
    if (k->kube.used) /* the context's, else "default" */
        return cres__opt_copy(a, &k->ns, k->kube.ns ? k->kube.ns : "default")
                   ? CRES_OK
                   : cres__oom(err, "kubernetes");
    if (file) {
        cres_result res = cres__read_small_file(&k->base, file, 253, &k->ns, err);
        if (res == CRES_ERR_OUT_OF_MEMORY || (res != CRES_OK && o->namespace_file)) return res;
        if (res == CRES_OK && *k->ns) return CRES_OK;
        cres__free(a, k->ns);
        k->ns = NULL;
    }
    return cres__opt_copy(a, &k->ns, "default") ? CRES_OK : cres__oom(err, "kubernetes");
}

/* Members JOB names one job, the own Job's (or JobSet's), in the own namespace, by DNS name.
   Runs on the jobs as copied (each named, with a selector). */
CRES__PRIVATE cres_result cres__k8s_members_check(const cres__k8s *k, const cres_k8s_options *o,
                                                  cres_error *err) {
    size_t i;
    if ((unsigned)o->members > (unsigned)CRES_K8S_MEMBERS_JOB)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "kubernetes: members out of range");
    if (o->members != CRES_K8S_MEMBERS_JOB) return CRES_OK;
#ifdef CLUSTER_RESOLVER_NO_K8S_JOB
    return cres__fail(err, CRES_ERR_UNSUPPORTED, "kubernetes: members JOB is left out of this "
                      "build by CLUSTER_RESOLVER_NO_K8S_JOB");
#endif
    if (o->all_namespaces || o->address == CRES_K8S_HOST_IP)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "kubernetes: options.members JOB names pods of the own namespace by "
                          "DNS name; options.all_namespaces and options.address HOST_IP need "
                          "options.members LIST");
    if (k->jobs_count < 2) return CRES_OK;
    for (i = 1; i < k->jobs_count; i++)
        if (strcmp(k->jobs[i].job, k->jobs[0].job) != 0)
            return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                              "kubernetes: options.members JOB gives one job, the own Job's; "
                              "options.jobs names \"%.40s\" and \"%.40s\"",
                              k->jobs[0].job, k->jobs[i].job);
    /* one job of several selectors: the others would be ignored, or be another Job's */
    return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                      "kubernetes: options.members JOB gives the own Job's members; job \"%.40s\" "
                      "has %zu selectors (options.members LIST merges them)",
                      k->jobs[0].job, k->jobs_count);
}

CRES_API cres_result cres_k8s_resolver_create(const cres_k8s_options *o, cres_resolver **out,
                                              cres_error *err) {
    cres_k8s_options none;
    cres_resolver *r;
    cres__k8s *k;
    const cres_allocator *a;
    const char *host, *bad = NULL;
    int value = 0;
    cres_result res;
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "k8s: out is NULL");
    *out = NULL;
    if ((o->token && o->token_file) || (o->namespace_name && o->namespace_file))
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "kubernetes: set %s, not both",
                          o->token && o->token_file ? "token or token_file"
                                                     : "namespace_name or namespace_file");
    if (o->server && (o->kubeconfig || o->context))
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "kubernetes: options.%s is not read with options.server",
                          o->kubeconfig ? "kubeconfig" : "context");
    if (o->port < 0 || o->port > 65535) bad = "port", value = o->port;
    else if (o->page_size < 0) bad = "page_size", value = o->page_size;
    else if (o->wait_ms < 0) bad = "wait_ms", value = o->wait_ms;
    else if ((unsigned)o->address > (unsigned)CRES_K8S_DNS)
        bad = "address", value = (int)o->address;
    if (bad)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "kubernetes: options.%s %d is out of range", bad, value);
    if ((res = cres_resolver_new(sizeof *k, &cres__k8s_vtable, o->config, &r, err)) != CRES_OK)
        return res;
    k = (cres__k8s *)r;
    a = &r->config.allocator;
    k->all_namespaces = o->all_namespaces;
    k->port = o->port ? o->port : CRES__DEFAULT_PORT;
    k->page_size = o->page_size ? o->page_size : 500;
    k->wait_ms = o->wait_ms;
    k->follow_jobset = o->follow_jobset != 0;
    k->members = o->members == CRES_K8S_MEMBERS_JOB ? CRES_K8S_MEMBERS_JOB : CRES_K8S_MEMBERS_LIST;
    k->address = o->address;
    host = o->hostname ? o->hostname : cres_resolver_getenv(r, cres__hostname_var);
    res = cres__k8s_copy_jobs(k, o, err);
    if (res == CRES_OK) res = cres__k8s_members_check(k, o, err);
    if (res == CRES_OK) res = cres__k8s_server(k, o, err);
    if (res == CRES_OK &&
        !(cres__opt_copy(a, &k->token, o->token) &&
          cres__opt_copy(a, &k->token_file, o->token_file) &&
          cres__opt_copy(a, &k->ca_file, o->ca_file) && cres__opt_copy(a, &k->hostname, host) &&
          cres__opt_copy(a, &k->completion_index,
                         cres_resolver_getenv(r, "JOB_COMPLETION_INDEX")) &&
          cres__opt_copy(a, &k->cluster_domain,
                         o->cluster_domain ? o->cluster_domain : "cluster.local")))
        res = cres__oom(err, "kubernetes");
    if (res == CRES_OK) res = cres__k8s_namespace(k, o, err);
    if (res == CRES_OK) res = cres_set_rpc_layer(r, "grpc", err);
    if (res == CRES_OK) res = cres__apply_options(r, o->task_type, o->task_id, o->rpc_layer, err);
    return cres__created(r, res, out);
}
#else
CRES__LEFT_OUT(cres_k8s_resolver_create, cres_k8s_options, "kubernetes", "CLUSTER_RESOLVER_NO_K8S")
#endif /* CLUSTER_RESOLVER_NO_K8S */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Google Cloud: the metadata server and access tokens                             >>google */

#ifdef CRES__GOOGLE
#define CRES__METADATA_TIMEOUT_MS 2000 /* off Google Cloud a lookup must fail fast */
#ifndef CRES_MAX_GCP_PAGES
#  define CRES_MAX_GCP_PAGES 1000 /* pages of one list: a pageToken cannot run on */
#endif

/* A path segment we put in URLs: a Google resource name (letters, digits, "-_.:", as in
   the legacy "example.com:project"), starting with a letter or digit, so never "." or "..". */
CRES__PRIVATE int cres__resource_name_ok(const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 128 ||
        !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
          (s[0] >= '0' && s[0] <= '9')))
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") == n;
}

/* Where the metadata server is: options, $GCE_METADATA_HOST, $GCE_METADATA_IP, or
   metadata.google.internal; "http://" is added to a bare host. */
CRES__PRIVATE char *cres__metadata_base(cres_resolver *r, const char *option) {
    const char *host = option;
    size_t n;
    char *s;
    if (!host || !*host) host = cres_resolver_getenv(r, "GCE_METADATA_HOST");
    if (!host || !*host) host = cres_resolver_getenv(r, "GCE_METADATA_IP");
    if (!host || !*host) host = "metadata.google.internal";
    if (!(s = cres__concat(&r->config.allocator, strstr(host, "://") ? "" : "http://", host)))
        return NULL;
    for (n = strlen(s); n > 0 && s[n - 1] == '/';) s[--n] = '\0';
    return s;
}

/* A base URL given as an option (compute_url, tpu_url): http:// or https://, then a host. */
CRES__PRIVATE int cres__base_url_ok(const char *url) {
    const char *host = strncmp(url, "https://", 8) == 0  ? url + 8
                       : strncmp(url, "http://", 7) == 0 ? url + 7
                                                         : NULL;
    return host && *host && *host != '/' && !cres__bad_text(url, 1);
}

/* An HTTP error status from a Google API, with its message and what to do. */
CRES__PRIVATE cres_result cres__google_status_error(const cres_resolver *r,
                                                    const cres_http_response *resp,
                                                    const char *permission, cres_error *err) {
    char message[136];
    const char *name = r->vtable->name;
    cres__error_message(r, resp, "error", 120, message, sizeof message); /* Google's error body */
    if (resp->status == 401)
        cres_error_set(err, CRES_ERR_HTTP_STATUS,
                       "%s: 401 Unauthorized%s; the access token was refused", name, message);
    else if (resp->status == 403)
        cres_error_set(err, CRES_ERR_HTTP_STATUS,
                       "%s: 403 Forbidden%s; the account needs %s and the cloud-platform scope",
                       name, message, permission);
    else if (resp->status == 404)
        cres_error_set(err, CRES_ERR_HTTP_STATUS, "%s: 404 Not Found%s", name, message);
    else
        cres_error_set(err, CRES_ERR_HTTP_STATUS, "%s: HTTP %d%s%s", name, resp->status,
                       cres__redirect_note(resp->status), message);
    if (err) err->http_status = resp->status;
    return CRES_ERR_HTTP_STATUS;
}

/* GET <base>/computeMetadata/v1/<path>: the text answer in *out, or NULL when the server
   says 404 (not set). A server that does not answer, and has not answered during this
   resolve, means we are not on Google Cloud; one that has is a network fault. */
CRES__PRIVATE cres_result cres__metadata_get(cres__http *h, const char *base, const char *path,
                                             char **out, cres_error *err) {
    cres_resolver *r = h->r;
    cres_http_header flavor;
    cres_http_response resp;
    size_t n = strlen(base) + strlen(path) + 24;
    char *url = (char *)cres__alloc(&r->config.allocator, n);
    cres_result res;
    int timeout = r->config.timeout_ms < CRES__METADATA_TIMEOUT_MS ? r->config.timeout_ms
                                                                   : CRES__METADATA_TIMEOUT_MS;
    *out = NULL;
    if (!url) return cres__oom(err, r->vtable->name);
    snprintf(url, n, "%s/computeMetadata/v1/%s", base, path);
    flavor.name = "Metadata-Flavor";
    flavor.value = "Google";
    /* Short and few: JAX users report six 60 s hangs off Google Cloud; we must not. */
    res = cres__http_call(h, "GET", url, &flavor, 1, NULL, NULL, timeout,
                          r->config.max_retries ? 1 : 0, &resp, err);
    cres__free(&r->config.allocator, url);
    /* no status line, not for want of time, and never an answer: nobody is there */
    if ((res == CRES_ERR_TRANSPORT || res == CRES_ERR_TIMEOUT) && !resp.status &&
        !cres__http_out_of_time(h) && !h->metadata_answered)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: not on Google Cloud? the metadata server at %.100s did not answer; "
                          "pass the project, "
                          "zone and a token, or set GCE_METADATA_HOST",
                          r->vtable->name, base);
    if (res != CRES_OK) return res;
    h->metadata_answered = 1;
    if (resp.status == 404) {
        cres__response_free(r, &resp);
        return CRES_OK;
    }
    if (resp.status != 200) { /* its error bodies are HTML pages: the status says it all */
        cres_error_set(err, CRES_ERR_HTTP_STATUS, "%s: metadata %s: HTTP %d%s", r->vtable->name,
                       path, resp.status, cres__redirect_note(resp.status));
        if (err) err->http_status = resp.status;
        cres__response_free(r, &resp);
        return CRES_ERR_HTTP_STATUS;
    }
    while (resp.body_len &&
           (resp.body[resp.body_len - 1] == '\n' || resp.body[resp.body_len - 1] == '\r'))
        resp.body[--resp.body_len] = '\0';
    if (strlen(resp.body) != resp.body_len || cres__bad_text(resp.body, 0)) {
        cres__response_free(r, &resp);
        return cres__fail(
            err, CRES_ERR_UNEXPECTED_RESPONSE,
            "%s: metadata %s is not text: a NUL, a control character or invalid UTF-8",
            r->vtable->name, path);
    }
    *out = resp.body; /* allocated with the resolver's allocator */
    return CRES_OK;
}

/* A metadata value we can do without: a server that is not there (off Google Cloud) or says
   404 gives NULL. Any other failure (a server that answered and then broke off, an error
   status, out of memory) is the caller's: a wrong answer must not pass for success. */
CRES__PRIVATE cres_result cres__metadata_optional(cres__http *h, const char *base, const char *path,
                                                  char **out, cres_error *err) {
    cres_result res = cres__metadata_get(h, base, path, out, err);
    if (res != CRES_ERR_ENVIRONMENT) return res;
    cres__clear(err); /* *out is NULL */
    return CRES_OK;
}

/* A metadata value that must be there. */
CRES__PRIVATE cres_result cres__metadata_need(cres__http *h, const char *base, const char *path,
                                              char **out, cres_error *err) {
    cres_result res = cres__metadata_get(h, base, path, out, err);
    if (res == CRES_OK && !*out)
        return cres__fail(err, CRES_ERR_NOT_FOUND, "%s: the metadata server has no %s",
                          h->r->vtable->name, path);
    return res;
}

/* ---- Application Default Credentials: the file ------------------------------------------ */

/* The names here are arrays, or one literal of their own (cres__json_pick_packed), so that
   programs without GCE and TPU do not carry them (see "Footprint" in >>impl). */

#define CRES__GCP_SCOPE "https://www.googleapis.com/auth/cloud-platform"
#define CRES__GCP_TOKEN_URI "https://oauth2.googleapis.com/token"
#define CRES__GCP_TOKEN_LIFE 3600  /* seconds: a JWT's and an impersonated token's */
#define CRES__GCP_TOKEN_MARGIN 300 /* a kept token is renewed this long before it expires */
#define CRES__GCP_CREDENTIALS_MAX (64 * 1024) /* a key file is about 2.4 KB */
#define CRES__GCP_TOKEN_MAX 16384             /* an access token is 200 bytes to 2 KB */

/* The credential of a Google credentials file: authorized_user (gcloud auth
   application-default login), service_account (a key file), or impersonated_service_account
   (a source of either kind, then IAM's generateAccessToken). */
typedef enum cres__gkind { CRES__GNONE, CRES__GUSER, CRES__GKEY } cres__gkind;
typedef struct cres__gcred {
    cres__gkind kind;        /* the (source) credential's kind; CRES__GNONE = no file */
    char *client_id, *client_secret, *refresh_token;   /* authorized_user */
    char *client_email, *private_key, *private_key_id; /* service_account */
    char *token_uri, *project_id, *quota_project_id;
    char *impersonation_url, *delegates; /* impersonated: the URL, the list as JSON text */
    char *path;                          /* the file */
    const char *origin;                  /* what named it, for messages */
    unsigned long long hash;             /* of its text: a kept token belongs to one file */
} cres__gcred;

/* The string fields a credentials file may hold, where they go: a plain file's are the first
   9, an impersonation source's the first 8, an impersonated file's own the last 2. */
static const struct {
    char key[36];
    size_t at;
} cres__gcred_fields[] = {
    {"client_id", offsetof(cres__gcred, client_id)},
    {"client_secret", offsetof(cres__gcred, client_secret)},
    {"refresh_token", offsetof(cres__gcred, refresh_token)},
    {"client_email", offsetof(cres__gcred, client_email)},
    {"private_key", offsetof(cres__gcred, private_key)},
    {"private_key_id", offsetof(cres__gcred, private_key_id)},
    {"token_uri", offsetof(cres__gcred, token_uri)},
    {"project_id", offsetof(cres__gcred, project_id)},
    {"quota_project_id", offsetof(cres__gcred, quota_project_id)},
    {"service_account_impersonation_url", offsetof(cres__gcred, impersonation_url)},
};
#define CRES__GCRED_FIELDS (sizeof cres__gcred_fields / sizeof cres__gcred_fields[0])

CRES__PRIVATE char **cres__gcred_slot(cres__gcred *c, size_t i) {
    return (char **)(void *)((char *)c + cres__gcred_fields[i].at);
}

CRES__PRIVATE void cres__gcred_free(const cres_allocator *a, cres__gcred *c) {
    size_t i;
    for (i = 0; i < CRES__GCRED_FIELDS; i++) cres__free(a, *cres__gcred_slot(c, i));
    cres__free(a, c->delegates);
    cres__free(a, c->path);
    memset(c, 0, sizeof *c);
}

/* An access token we can send: one word of at most CRES__GCP_TOKEN_MAX bytes. */
CRES__PRIVATE int cres__gcp_token_ok(const char *t) {
    return t && *t && strlen(t) <= CRES__GCP_TOKEN_MAX && !cres__bad_text(t, 1);
}

/* An endpoint a secret may go to: https, or http to this machine only (a local proxy or a
   test's fake): the authority (no user info) is localhost, 127.x.y.z or [::1], with a port or
   not; never a host that could read the refresh token off the wire. */
CRES__PRIVATE int cres__gcp_endpoint_ok(const char *url) {
    CRES__BYTE_ALIGNED static const char https[] = "https://", localhost[] = "localhost",
                                         ip6[] = "[::1]";
    const char *host = url + 7;
    size_t n, h, i, dots = 0;
    if (cres__bad_text(url, 1)) return 0;
    if (strncmp(url, https, 8) == 0) return url[8] && url[8] != '/';
    if (strncmp(url, https, 4) != 0 || strncmp(url + 4, https + 5, 3) != 0) return 0; /* http:// */
    n = strcspn(host, "/?#"), h = strcspn(host, ":/?#");
    if (memchr(host, '@', n)) return 0;
    if (host[0] == '[') return strncmp(host, ip6, 5) == 0 && (n == 5 || host[5] == ':');
    if (h == 9 && strncmp(host, localhost, 9) == 0) return 1;
    if (h < 7 || strncmp(host, "127.", 4) != 0) return 0;
    for (i = 0; i < h; i++) /* digits and three dots: an address, not a name */
        if (host[i] == '.' ? (++dots > 3 || i + 1 == h || host[i + 1] == '.')
                           : !(host[i] >= '0' && host[i] <= '9'))
            return 0;
    return dots == 3;
}

/* The string fields of object obj (a file, or an impersonated file's source_credentials). */
CRES__PRIVATE cres_result cres__gcred_strings(const cres_resolver *r, const cres__json *d, int obj,
                                             cres__gcred *c, size_t from, size_t to,
                                             const char *what, cres_error *err) {
    size_t i;
    for (i = from; i < to; i++) {
        char **slot = cres__gcred_slot(c, i);
        int v, ok;
        cres_result res = cres__json_member(d, obj, cres__gcred_fields[i].key, &v, what,
                                            CRES_ERR_ENVIRONMENT, err);
        if (res != CRES_OK) return res;
        if (v < 0 || cres__json_is_null(d, v)) continue;
        if (d->t[v].type != JSMN_STRING)
            return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: \"%s\" must be a string", what,
                              cres__gcred_fields[i].key);
        cres__free(d->a, *slot);
        if ((ok = cres__json_strdup(d, v, slot)) == 0) return cres__oom(err, r->vtable->name);
        /* a private key holds newlines and goes to the signer only; the rest is text */
        if (ok < 0 || (slot != &c->private_key && cres__bad_text(*slot, slot != &c->client_secret)))
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "%s: \"%s\" has control characters or invalid UTF-8", what,
                              cres__gcred_fields[i].key);
    }
    return CRES_OK;
}

/* The kind named by "type", or an error naming what to do instead. */
CRES__PRIVATE cres_result cres__gcred_kind(const cres__json *d, int obj, int source,
                                           cres__gkind *kind, const char *what, cres_error *err) {
    char q[CRES__QUOTE_SIZE];
    /* an array, not a literal tfconfig shares (above) */
    CRES__BYTE_ALIGNED static const char type[] = "type";
    int v;
    cres_result res = cres__json_member(d, obj, type, &v, what, CRES_ERR_ENVIRONMENT, err);
    if (res != CRES_OK) return res;
    if (v < 0 || d->t[v].type != JSMN_STRING)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: no \"type\" string%s", what,
                          source ? " in source_credentials" : "");
    *kind = cres__json_eq(d, v, "authorized_user")   ? CRES__GUSER
            : cres__json_eq(d, v, "service_account") ? CRES__GKEY
                                                     : CRES__GNONE;
    if (*kind == CRES__GNONE && !source && cres__json_eq(d, v, "impersonated_service_account"))
        return CRES_OK; /* the caller reads its source */
    if (*kind == CRES__GNONE)
        return cres__fail(err, CRES_ERR_UNSUPPORTED,
                          "%s: type %s%s is not supported; use a token file: gcloud auth "
                          "print-access-token > F, --token-file F",
                          what, cres__json_quote(d, v, q, sizeof q),
                          source ? " (as source)" : "");
    return CRES_OK;
}

/* An impersonated file's own parts: the URL, the delegates (a list of strings, kept as its
   JSON text for the request body), its quota project (the source's does not count). */
CRES__PRIVATE cres_result cres__gcred_impersonated(const cres_resolver *r, const cres__json *d,
                                                  cres__gcred *c, const char *what,
                                                  cres_error *err) {
    int v[2], i, e;
    cres_result res;
    cres__json_pick_packed(d, 0, "source_credentials\0delegates", v, 2);
    if (v[0] < 0 || d->t[v[0]].type != JSMN_OBJECT)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: no \"source_credentials\" object", what);
    if ((res = cres__gcred_kind(d, v[0], 1, &c->kind, what, err)) != CRES_OK ||
        (res = cres__gcred_strings(r, d, v[0], c, 0, 8, what, err)) != CRES_OK ||
        (res = cres__gcred_strings(r, d, 0, c, 8, 10, what, err)) != CRES_OK)
        return res;
    if (!c->impersonation_url)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: no \"service_account_impersonation_url\"", what);
    if (v[1] >= 0 && !cres__json_is_null(d, v[1])) {
        const jsmntok_t *t = &d->t[v[1]];
        if (t->type != JSMN_ARRAY)
            return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: \"delegates\" must be a list", what);
        for (i = 0, e = v[1] + 1; i < t->size; i++, e = cres__json_next(d, e))
            if (d->t[e].type != JSMN_STRING)
                return cres__fail(err, CRES_ERR_ENVIRONMENT,
                                  "%s: \"delegates\" must be a list of strings", what);
        c->delegates = cres__strndup(d->a, d->s + t->start, (size_t)(t->end - t->start));
        if (!c->delegates) return cres__oom(err, r->vtable->name);
    }
    return CRES_OK;
}

/* Parses a credentials file's text into c, checking what its kind needs. */
CRES__PRIVATE cres_result cres__gcred_parse(const cres_resolver *r, const char *text,
                                           cres__gcred *c, const char *what, cres_error *err) {
    const char *missing = NULL;
    cres__json d;
    cres_result res = cres__json_parse_document(&d, text, strlen(text), &r->config.allocator, what,
                                                CRES_ERR_ENVIRONMENT, err);
    if (res != CRES_OK) return res;
    if (d.t[0].type != JSMN_OBJECT)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: not a JSON object", what);
    if (res == CRES_OK) res = cres__gcred_kind(&d, 0, 0, &c->kind, what, err);
    if (res == CRES_OK && c->kind == CRES__GNONE)
        res = cres__gcred_impersonated(r, &d, c, what, err);
    else if (res == CRES_OK) res = cres__gcred_strings(r, &d, 0, c, 0, 9, what, err);
    cres__json_free(&d);
    if (res != CRES_OK) return res;
    if (c->kind == CRES__GUSER)
        missing = !c->client_id       ? "client_id"
                  : !c->client_secret ? "client_secret"
                  : !c->refresh_token ? "refresh_token"
                                      : NULL;
    else
        missing = !c->client_email  ? "client_email"
                  : !c->private_key ? "private_key"
                  : !c->token_uri   ? "token_uri"
                                    : NULL;
    if (missing)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: a%s %s credential needs \"%s\"", what,
                          c->kind == CRES__GUSER ? "n" : "",
                          c->kind == CRES__GUSER ? "authorized_user" : "service_account", missing);
    if (!c->token_uri && !(c->token_uri = cres__strdup(&r->config.allocator, CRES__GCP_TOKEN_URI)))
        return cres__oom(err, r->vtable->name);
    if (!cres__gcp_endpoint_ok(c->token_uri) ||
        (c->impersonation_url && !cres__gcp_endpoint_ok(c->impersonation_url)))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: \"%s\" must be an https:// URL (http:// only to this machine)",
                          what, cres__gcp_endpoint_ok(c->token_uri)
                                    ? "service_account_impersonation_url"
                                    : "token_uri");
    return CRES_OK;
}

/* FNV-1a of a file's text: a token kept from one file is never used for another. */
CRES__PRIVATE unsigned long long cres__hash_text(const char *s) {
    unsigned long long h = 14695981039346656037ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Reads the credentials file at path (named by origin) into c. missing_ok: a file that is
   not there leaves c empty (gcloud's well-known file is optional; a named file is not). */
CRES__PRIVATE cres_result cres__gcred_load(const cres_resolver *r, const char *path,
                                          const char *origin, int missing_ok, cres__gcred *c,
                                          cres_error *err) {
    char q[96], what[176], *text = NULL;
    size_t n = strlen(path), keep = n > 60 ? n - 57 : 0; /* a long path: its end, the name */
    cres_result res = cres__read_file(r, path, CRES__GCP_CREDENTIALS_MAX, 0, &text, err);
    if (res == CRES_ERR_ENVIRONMENT && missing_ok) {
        FILE *probe = fopen(path, "rb"); /* missing: skipped; there but unreadable: not */
        if (!probe) {
            cres__clear(err);
            return CRES_OK;
        }
        fclose(probe);
    }
    snprintf(what, sizeof what, "%s: %s %s%s", r->vtable->name, origin, keep ? "..." : "",
             cres__quote(q, sizeof q, path + keep, n - keep));
    if (res == CRES_ERR_ENVIRONMENT) return cres__fail(err, res, "%s cannot be read", what);
    if (res != CRES_OK) return res;
    c->origin = origin;
    c->hash = cres__hash_text(text);
    if (!(c->path = cres__strdup(&r->config.allocator, path)))
        res = cres__oom(err, r->vtable->name);
    if (res == CRES_OK) res = cres__gcred_parse(r, text, c, what, err);
    cres__free(&r->config.allocator, text);
    return res;
}

/* google-auth's chain after options.token and token_file: options.credentials_file,
   $GOOGLE_APPLICATION_CREDENTIALS, then gcloud's well-known file (in $CLOUDSDK_CONFIG when
   set, else ~/.config/gcloud, %APPDATA%\gcloud on Windows). None: c stays empty, and the
   metadata server gives the token. */
CRES__PRIVATE cres_result cres__gcred_find(const cres_resolver *r, const char *option,
                                          cres__gcred *c, cres_error *err) {
    const char *named = cres_resolver_getenv(r, "GOOGLE_APPLICATION_CREDENTIALS");
    const char *dir = cres_resolver_getenv(r, "CLOUDSDK_CONFIG"), *sub = "";
    char path[4096];
    if (option) return cres__gcred_load(r, option, "options.credentials_file", 0, c, err);
    if (named && *named)
        return cres__gcred_load(r, named, "GOOGLE_APPLICATION_CREDENTIALS", 0, c, err);
    if (!dir || !*dir) {
#ifdef _WIN32
        dir = cres_resolver_getenv(r, "APPDATA"), sub = "/gcloud";
#else
        dir = cres_resolver_getenv(r, "HOME"), sub = "/.config/gcloud";
#endif
    }
    if (!dir || !*dir) return CRES_OK;
    if (strlen(dir) > sizeof path - 80)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: the directory of gcloud's credentials is too long a path",
                          r->vtable->name);
    snprintf(path, sizeof path, "%s%s/application_default_credentials.json", dir, sub);
    return cres__gcred_load(r, path, "gcloud's ADC file", 1, c, err);
}

/* The account a credential acts as, for the log: never a secret. */
CRES__PRIVATE void cres__gcred_log(const cres_resolver *r, const cres__gcred *c) {
    char q[CRES__PATH_QUOTE_SIZE];
    const char *target = c->impersonation_url ? strstr(c->impersonation_url, "serviceAccounts/")
                                              : NULL;
    size_t n = target ? strcspn(target + 16, ":") : 0;
    cres__log(r, CRES_LOG_INFO, "%s: credentials from %s %s: %s %s%s%.*s", r->vtable->name,
              c->origin, cres__quote_str(q, sizeof q, c->path),
              c->kind == CRES__GUSER ? "authorized_user (client_id)" : "service_account",
              c->kind == CRES__GUSER ? c->client_id : c->client_email,
              c->impersonation_url ? ", impersonating " : "", (int)n, target ? target + 16 : "");
}

/* ---- Application Default Credentials: tokens ---------------------------------------------- */

/* A secret's memory (n bytes) is cleared before it goes back to the allocator. */
CRES__PRIVATE void cres__free_secret_n(const cres_allocator *a, char *s, size_t n) {
    if (!s) return;
    memset(s, 0, n);
    cres__free(a, s);
}

CRES__PRIVATE void cres__free_secret(const cres_allocator *a, char *s) {
    if (s) cres__free_secret_n(a, s, strlen(s));
}

/* The refresh-token grant's form body (RFC 6749 section 6). */
CRES__PRIVATE void cres__put_refresh_grant(cres__writer *w, const void *x) {
    const cres__gcred *c = (const cres__gcred *)x;
    cres__puts(w, "grant_type=refresh_token&client_id=");
    cres__put_url_encoded(w, c->client_id);
    cres__puts(w, "&client_secret=");
    cres__put_url_encoded(w, c->client_secret);
    cres__puts(w, "&refresh_token=");
    cres__put_url_encoded(w, c->refresh_token);
}

typedef struct cres__jwt {
    const cres__gcred *c;
    long long iat;
    char *header, *claims;     /* JSON text */
    const unsigned char *sig;  /* NULL: the signing input alone; else the grant's form body */
    size_t sig_len;
} cres__jwt;

/* A service-account JWT's header and claims (RFC 7523), as google-auth writes them. */
CRES__PRIVATE void cres__put_jwt_header(cres__writer *w, const void *x) {
    const cres__jwt *j = (const cres__jwt *)x;
    cres__puts(w, "{\"alg\":\"RS256\",\"typ\":\"JWT\"");
    if (j->c->private_key_id) {
        cres__puts(w, ",\"kid\":");
        cres__put_json_string(w, j->c->private_key_id);
    }
    cres__puts(w, "}");
}

CRES__PRIVATE void cres__put_jwt_claims(cres__writer *w, const void *x) {
    const cres__jwt *j = (const cres__jwt *)x;
    cres__puts(w, "{\"iss\":");
    cres__put_json_string(w, j->c->client_email);
    cres__puts(w, ",\"scope\":\"" CRES__GCP_SCOPE "\",\"aud\":");
    cres__put_json_string(w, j->c->token_uri);
    cres__puts(w, ",\"iat\":");
    cres__put_int(w, j->iat);
    cres__puts(w, ",\"exp\":");
    cres__put_int(w, j->iat + CRES__GCP_TOKEN_LIFE);
    cres__puts(w, "}");
}

/* base64url(header).base64url(claims), then (with the signature) the jwt-bearer grant. */
CRES__PRIVATE void cres__put_jwt(cres__writer *w, const void *x) {
    const cres__jwt *j = (const cres__jwt *)x;
    const char dot = '.'; /* not the literal "." other code shares ("Footprint", >>impl) */
    if (j->sig)
        cres__puts(w,
                   "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=");
    cres__put_b64(w, j->header, strlen(j->header), 1);
    cres__put(w, &dot, 1);
    cres__put_b64(w, j->claims, strlen(j->claims), 1);
    if (!j->sig) return;
    cres__put(w, &dot, 1);
    cres__put_b64(w, (const char *)j->sig, j->sig_len, 1);
}

#ifdef CLUSTER_RESOLVER_USE_OPENSSL
#  include <openssl/bio.h>
#  include <openssl/err.h>
#  include <openssl/evp.h>
#  include <openssl/pem.h>
/* OpenSSL's passphrase prompt: a library never asks (key files are not encrypted). */
CRES__PRIVATE int cres__no_passphrase(char *buf, int size, int rwflag, void *user) {
    (void)buf, (void)size, (void)rwflag, (void)user;
    return 0;
}

/* The default config.sign with CLUSTER_RESOLVER_USE_OPENSSL: libcrypto's RS256. */
CRES__PRIVATE cres_result cres__openssl_sign(void *user, const cres_sign_request *req,
                                             unsigned char *sig, size_t *sig_len,
                                             cres_error *err) {
    size_t len = strlen(req->private_key_pem), n = CRES_SIGNATURE_MAX;
    BIO *bio = len < 1000000 ? BIO_new_mem_buf(req->private_key_pem, (int)len) : NULL;
    EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, cres__no_passphrase, NULL) : NULL;
    EVP_MD_CTX *md = key ? EVP_MD_CTX_new() : NULL;
    const char *why = !bio                                 ? "out of memory"
                      : !key                               ? "not a PEM private key"
                      : !md                                ? "out of memory"
                      : EVP_PKEY_base_id(key) != EVP_PKEY_RSA ? "not an RSA key"
                      : EVP_PKEY_size(key) > CRES_SIGNATURE_MAX ? "an RSA key over 8192 bits"
                                                                : NULL;
    (void)user;
    if (!why && (EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) != 1 ||
                 EVP_DigestSignUpdate(md, req->data, req->data_len) != 1 ||
                 EVP_DigestSignFinal(md, sig, &n) != 1))
        why = "libcrypto could not sign with it";
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(key);
    BIO_free(bio);
    ERR_clear_error(); /* nothing of ours left in the thread's error queue */
    if (why)
        return cres__fail(err, why[0] == 'o' ? CRES_ERR_OUT_OF_MEMORY : CRES_ERR_ENVIRONMENT,
                          "RS256: the private_key is %s", why);
    *sig_len = n;
    return CRES_OK;
}
#endif

/* Signs a JWT's input with the key through config.sign, else libcrypto when compiled in. */
CRES__PRIVATE cres_result cres__gcp_sign(const cres_resolver *r, const cres__gcred *c,
                                         const char *input, unsigned char *sig, size_t *sig_len,
                                         cres_error *err) {
    cres_sign_request req;
    cres_sign_fn fn = r->config.sign.fn;
    cres_result res;
    char prefix[160];
    req.algorithm = "RS256";
    req.private_key_pem = c->private_key;
    req.data = (const unsigned char *)input;
    req.data_len = strlen(input);
    *sig_len = 0;
#ifdef CLUSTER_RESOLVER_USE_OPENSSL
    if (!fn) fn = cres__openssl_sign;
#endif
    if (!fn)
        return cres__fail(err, CRES_ERR_UNSUPPORTED,
                          "%s: %s holds a service-account key: signing it (RS256) needs "
                          "CLUSTER_RESOLVER_USE_OPENSSL (-lcrypto) or config.sign",
                          r->vtable->name, c->origin);
    res = fn(r->config.sign.user, &req, sig, sig_len, err);
    if (res == CRES_OK && (*sig_len == 0 || *sig_len > CRES_SIGNATURE_MAX))
        res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                         "config.sign gave a signature of %zu bytes", *sig_len);
    snprintf(prefix, sizeof prefix, "%s: %s: ", r->vtable->name, c->origin);
    return res == CRES_OK || res == CRES_ERR_OUT_OF_MEMORY ? res
                                                           : cres__wrap(err, res, CRES_OK, prefix);
}

/* The jwt-bearer grant's form body for a service-account key, in *body. */
CRES__PRIVATE cres_result cres__gcp_jwt_grant(const cres_resolver *r, const cres__gcred *c,
                                              char **body, cres_error *err) {
    const cres_allocator *a = &r->config.allocator;
    unsigned char sig[CRES_SIGNATURE_MAX];
    char *input = NULL;
    cres__jwt j;
    cres_result res;
    memset(&j, 0, sizeof j);
    j.c = c;
    j.iat = (long long)time(NULL);
    *body = NULL;
    if (!(j.header = cres__render(a, cres__put_jwt_header, &j)) ||
        !(j.claims = cres__render(a, cres__put_jwt_claims, &j)) ||
        !(input = cres__render(a, cres__put_jwt, &j)))
        res = cres__oom(err, r->vtable->name);
    else if ((res = cres__gcp_sign(r, c, input, sig, &j.sig_len, err)) == CRES_OK) {
        j.sig = sig;
        if (!(*body = cres__render(a, cres__put_jwt, &j))) res = cres__oom(err, r->vtable->name);
    }
    cres__free(a, j.header);
    cres__free(a, j.claims);
    cres__free(a, input);
    return res;
}

/* What fixes a credential the token endpoint refused. */
CRES__PRIVATE const char *cres__gcred_fix(const cres__gcred *c) {
    return c->kind == CRES__GUSER ? "run: gcloud auth application-default login"
                                  : "the key may be deleted or disabled: make a new one "
                                    "(gcloud iam service-accounts keys create)";
}

/* The token endpoint's answer (RFC 6749 section 5): the access token and its expiry. */
CRES__PRIVATE cres_result cres__gcp_token_answer(const cres_resolver *r, const cres__gcred *c,
                                                 const cres_http_response *resp, char **token,
                                                 long long *expires, cres_error *err) {
    const char *name = r->vtable->name;
    char q[2][CRES__QUOTE_SIZE];
    long long life = CRES__GCP_TOKEN_LIFE;
    int v[4], ok = resp->status == 200, got;
    cres__json d;
    cres_result res;
    char what[48];
    snprintf(what, sizeof what, "%s: token endpoint", name);
    res = cres__json_parse(&d, resp->body, resp->body_len, &r->config.allocator, what,
                           CRES_ERR_UNEXPECTED_RESPONSE, err);
    if (res != CRES_OK && (ok || res == CRES_ERR_OUT_OF_MEMORY)) return res;
    if (res != CRES_OK) { /* an error status without OAuth's JSON: a proxy's page, a 5xx */
        cres_error_set(err, CRES_ERR_HTTP_STATUS, "%s: token endpoint: HTTP %d%s", name,
                       resp->status, cres__redirect_note(resp->status));
        if (err) err->http_status = resp->status;
        return CRES_ERR_HTTP_STATUS;
    }
    cres__json_pick_packed(&d, 0, "access_token\0expires_in\0error\0error_description", v, 4);
    if (!ok && (resp->status == 400 || resp->status == 401) && v[2] >= 0) {
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "%s: the token endpoint refused the credentials from %s: %s %s; %s",
                         name, c->origin, cres__json_quote(&d, v[2], q[0], sizeof q[0]),
                         v[3] >= 0 ? cres__json_quote(&d, v[3], q[1], sizeof q[1]) : "",
                         cres__gcred_fix(c));
    } else if (!ok) {
        res = cres__fail(err, CRES_ERR_HTTP_STATUS, "%s: token endpoint: HTTP %d%s%s%s", name,
                         resp->status, cres__redirect_note(resp->status), v[2] >= 0 ? " " : "",
                         v[2] >= 0 ? cres__json_quote(&d, v[2], q[0], sizeof q[0]) : "");
    } else if (v[0] < 0 || d.t[v[0]].type != JSMN_STRING ||
               (v[1] >= 0 && (d.t[v[1]].type != JSMN_PRIMITIVE ||
                              cres__parse_decimal(d.s + d.t[v[1]].start,
                                                  (size_t)(d.t[v[1]].end - d.t[v[1]].start),
                                                  &life) != 1 ||
                              life < 1 || life > 366LL * 86400))) {
        res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                         "%s: the token endpoint's answer has no access_token or a bad "
                         "expires_in", name);
    } else if ((got = cres__json_strdup(&d, v[0], token)) == 0) {
        res = cres__oom(err, name);
    } else if (got < 0 || !cres__gcp_token_ok(*token)) {
        res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                         "%s: the token endpoint's access_token is empty, not one word or over "
                         "16 KiB",
                         name);
    }
    if (!ok && err) err->http_status = resp->status;
    *expires = (long long)time(NULL) + life;
    cres__json_free(&d);
    return res;
}

/* POSTs a grant to the file's token_uri: the access token and its expiry. */
CRES__PRIVATE cres_result cres__gcp_grant(cres__http *h, const cres__gcred *c, const char *body,
                                          char **token, long long *expires, cres_error *err) {
    cres_http_header headers[2];
    cres_http_response resp;
    cres_result res;
    headers[0].name = cres__content_type;
    headers[0].value = "application/x-www-form-urlencoded";
    headers[1].name = cres__accept;
    headers[1].value = cres__json_media;
    res = cres__http_request(h, cres__post, c->token_uri, headers, 2, body, NULL, &resp, err);
    if (res != CRES_OK) return res;
    res = cres__gcp_token_answer(h->r, c, &resp, token, expires, err);
    cres__free_secret_n(&h->r->config.allocator, resp.body, resp.body_len);
    return res;
}

/* IAM Credentials' generateAccessToken body: the delegates, the scope, an hour. */
CRES__PRIVATE void cres__put_impersonation(cres__writer *w, const void *x) {
    const cres__gcred *c = (const cres__gcred *)x;
    cres__puts(w, c->delegates ? "{\"delegates\":" : "{\"delegates\":[]");
    if (c->delegates) cres__puts(w, c->delegates);
    cres__puts(w, ",\"scope\":[\"" CRES__GCP_SCOPE "\"],\"lifetime\":\"3600s\"}");
}

/* The impersonated account's token, asked for with the source's. */
CRES__PRIVATE cres_result cres__gcp_impersonate(cres__http *h, const cres__gcred *c,
                                                const char *source, char **token,
                                                long long *expires, cres_error *err) {
    const cres_resolver *r = h->r;
    const cres_allocator *a = &r->config.allocator;
    cres_http_header headers[3];
    cres_http_response resp;
    char *body = cres__render(a, cres__put_impersonation, c), *bearer, *expiry = NULL;
    cres__json d;
    int v[2], got[2];
    cres_result res = CRES_OK;
    char what[48];
    snprintf(what, sizeof what, "%s: generateAccessToken", r->vtable->name);
    if (!body || !(bearer = cres__bearer_value(a, source))) {
        cres__free(a, body);
        return cres__oom(err, r->vtable->name);
    }
    headers[0].name = cres__authorization, headers[0].value = bearer;
    headers[1].name = cres__content_type, headers[1].value = cres__json_media;
    headers[2].name = cres__accept, headers[2].value = cres__json_media;
    res =
        cres__http_request(h, cres__post, c->impersonation_url, headers, 3, body, NULL, &resp, err);
    cres__free_secret(a, bearer);
    cres__free(a, body);
    if (res != CRES_OK) return res;
    if (resp.status != 200) {
        res = cres__google_status_error(r, &resp, "iam.serviceAccounts.getAccessToken", err);
    } else if ((res = cres__json_parse(&d, resp.body, resp.body_len, a, what,
                                       CRES_ERR_UNEXPECTED_RESPONSE, err)) == CRES_OK) {
        cres__json_pick_packed(&d, 0, "accessToken\0expireTime", v, 2);
        if (v[0] < 0 || d.t[v[0]].type != JSMN_STRING || v[1] < 0 ||
            d.t[v[1]].type != JSMN_STRING)
            res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                             "%s: generateAccessToken's answer has no accessToken or expireTime",
                             r->vtable->name);
        else if ((got[0] = cres__json_strdup(&d, v[0], token)) == 0 ||
                 (got[1] = cres__json_strdup(&d, v[1], &expiry)) == 0)
            res = cres__oom(err, r->vtable->name);
        else if (got[0] < 0 || got[1] < 0 || !cres__gcp_token_ok(*token) ||
                 !cres__parse_rfc3339(expiry, expires))
            res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                             "%s: generateAccessToken's accessToken is not one word of 16 KiB "
                             "at most, or its expireTime not an RFC 3339 time",
                             r->vtable->name);
        cres__free(a, expiry);
        cres__json_free(&d);
    }
    cres__free_secret_n(a, resp.body, resp.body_len);
    return res;
}

/* A new access token from a credentials file, and when it expires (wall clock). */
CRES__PRIVATE cres_result cres__gcp_file_token(cres__http *h, const cres__gcred *c, char **token,
                                               long long *expires, cres_error *err) {
    const cres_allocator *a = &h->r->config.allocator;
    char *body = NULL, *source = NULL;
    cres_result res;
    *token = NULL;
    if (c->kind == CRES__GKEY) res = cres__gcp_jwt_grant(h->r, c, &body, err);
    else if (!(body = cres__render(a, cres__put_refresh_grant, c)))
        res = cres__oom(err, h->r->vtable->name);
    else res = CRES_OK;
    if (res != CRES_OK) return res;
    res = cres__gcp_grant(h, c, body, c->impersonation_url ? &source : token, expires, err);
    cres__free_secret(a, body);
    if (res == CRES_OK && c->impersonation_url)
        res = cres__gcp_impersonate(h, c, source, token, expires, err);
    cres__free_secret(a, source);
    if (res != CRES_OK) {
        cres__free_secret(a, *token);
        *token = NULL;
    }
    return res;
}

/* What GCE and Cloud TPU share: where things are, and how to get a token. */
typedef struct cres__gcp {
    char *project, *zone, *metadata, *token, *token_file, *ca_file, *credentials_file;
    int metadata_known; /* named by options or the environment: worth asking optional things */
    /* one resolve's: */
    int project_found;       /* project came from the environment or the credentials file */
    cres__gcred cred;        /* the credentials file, if the chain found one */
    char *bearer;            /* "Bearer <token>" */
    long long bearer_expires; /* a credentials file's token: kept until then (wall clock) */
    unsigned long long bearer_hash; /* ... for that file's text only */
} cres__gcp;

CRES__PRIVATE void cres__gcp_free(const cres_allocator *a, cres__gcp *g) {
    cres__free(a, g->project);
    cres__free(a, g->zone);
    cres__free(a, g->metadata);
    cres__free(a, g->token);
    cres__free(a, g->token_file);
    cres__free(a, g->ca_file);
    cres__free(a, g->credentials_file);
    cres__gcred_free(a, &g->cred);
    cres__free_secret(a, g->bearer);
}

CRES__PRIVATE cres_result cres__gcp_init(cres_resolver *r, cres__gcp *g, const char *project,
                                         const char *zone, const char *metadata_url,
                                         const char *token, const char *token_file,
                                         const char *credentials_file, const char *ca_file,
                                         cres_error *err) {
    const cres_allocator *a = &r->config.allocator;
    if (token && token_file)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "%s: set token or token_file, not both",
                          r->vtable->name);
    if (!cres__opt_copy(a, &g->project, project) || !cres__opt_copy(a, &g->zone, zone) ||
        !cres__opt_copy(a, &g->token, token) || !cres__opt_copy(a, &g->token_file, token_file) ||
        !cres__opt_copy(a, &g->credentials_file, credentials_file) ||
        !cres__opt_copy(a, &g->ca_file, ca_file) ||
        !(g->metadata = cres__metadata_base(r, metadata_url)))
        return cres__oom(err, r->vtable->name);
    g->metadata_known = (metadata_url && *metadata_url) ||
                        cres_resolver_getenv(r, "GCE_METADATA_HOST") ||
                        cres_resolver_getenv(r, "GCE_METADATA_IP");
    return CRES_OK;
}

/* The project when the options leave it out: $GOOGLE_CLOUD_PROJECT, $CLOUDSDK_CORE_PROJECT,
   the credentials file's project_id, else its quota_project_id (google-auth's order); for
   this resolve only. None: the metadata server's (cres__gcp_locate). */
CRES__PRIVATE cres_result cres__gcp_project(const cres_resolver *r, cres__gcp *g,
                                            cres_error *err) {
    static const char *const vars[] = {"GOOGLE_CLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT"};
    const char *p = NULL, *from = NULL;
    char q[CRES__QUOTE_SIZE];
    int i;
    for (i = 0; i < 2 && !p; i++)
        if (cres__env_set(r, vars[i])) p = cres_resolver_getenv(r, vars[i]), from = vars[i];
    if (!p && g->cred.project_id) p = g->cred.project_id, from = "the credentials' project_id";
    if (!p && g->cred.quota_project_id)
        p = g->cred.quota_project_id, from = "the credentials' quota_project_id";
    if (!p) return CRES_OK;
    if (!cres__resource_name_ok(p))
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s=%s is not a project id",
                          r->vtable->name, from, cres__quote_str(q, sizeof q, p));
    if (!(g->project = cres__strdup(&r->config.allocator, p)))
        return cres__oom(err, r->vtable->name);
    g->project_found = 1;
    cres__log(r, CRES_LOG_DEBUG, "%s: project %s from %s", r->vtable->name, p, from);
    return CRES_OK;
}

/* Project (and zone, if asked) from the metadata server when nothing else named them (kept
   for the next resolve: they do not change under a running instance). Off Google Cloud the
   error names the option to pass. */
CRES__PRIVATE cres_result cres__gcp_locate(cres__http *h, cres__gcp *g, int need_zone,
                                           cres_error *err) {
    const char *name = h->r->vtable->name;
    cres_result res = CRES_OK;
    char *zone;
    if (!g->project &&
        (res = cres__metadata_need(h, g->metadata, "project/project-id", &g->project, err)) ==
            CRES_ERR_ENVIRONMENT)
        return cres__fail(err, res,
                          "%s: no project: pass options.project (--project) or set "
                          "GOOGLE_CLOUD_PROJECT; not on Google Cloud (no metadata server at "
                          "%.80s)",
                          name, g->metadata);
    if (res == CRES_OK && !cres__resource_name_ok(g->project))
        res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                         "%s: the metadata project id is not a resource name", name);
    if (res == CRES_OK && need_zone && !g->zone &&
        (res = cres__metadata_need(h, g->metadata, "instance/zone", &zone, err)) == CRES_OK) {
        const char *last = strrchr(zone, '/'); /* projects/123/zones/us-east1-d */
        g->zone = cres__strdup(&h->r->config.allocator, last ? last + 1 : zone);
        cres__free(&h->r->config.allocator, zone);
        if (!g->zone) res = cres__oom(err, name);
        else if (!cres__resource_name_ok(g->zone))
            res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                             "%s: the metadata zone is not a resource name", name);
    } else if (res == CRES_ERR_ENVIRONMENT) {
        res = cres__fail(err, res,
                         "%s: no zone: pass options.zone (--zone); none by default when not on "
                         "Google Cloud (no metadata server at %.80s)",
                         name, g->metadata);
    }
    return res;
}

/* The "Bearer ..." header value: options.token, the token file (read at every resolve), or
   the metadata server's token for the default service account. Never logged. */
CRES__PRIVATE cres_result cres__gcp_bearer(cres__http *h, cres__gcp *g, char **out,
                                           cres_error *err) {
    static const char *const key[] = {"access_token"};
    const cres_allocator *a = &h->r->config.allocator;
    char *token = NULL, *answer = NULL;
    const char *t = g->token;
    cres_result res = CRES_OK;
    cres__json d;
    int m;
    *out = NULL;
    if (!t && g->token_file)
        res = cres__read_small_file(h->r, g->token_file, 64 * 1024, &token, err);
    if (!t && !g->token_file &&
        (res = cres__metadata_need(h, g->metadata, "instance/service-accounts/default/token",
                                   &answer, err)) == CRES_OK) {
        char what[32];
        snprintf(what, sizeof what, "%s: metadata token", h->r->vtable->name);
        res = cres__json_parse(&d, answer, strlen(answer), a, what, CRES_ERR_UNEXPECTED_RESPONSE,
                               err);
        if (res == CRES_OK) {
            cres__json_pick(&d, 0, key, &m, 1);
            if (m < 0 || d.t[m].type != JSMN_STRING)
                res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                                 "%s: the metadata token has no access_token", h->r->vtable->name);
            else if (cres__json_strdup(&d, m, &token) == 0)
                res = cres__oom(err, h->r->vtable->name);
            cres__json_free(&d);
        }
    }
    if (!t) t = token;
    if (res == CRES_OK && !cres__gcp_token_ok(t))
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "%s: the access token is empty, over 16 KiB or has spaces or control "
                         "characters",
                         h->r->vtable->name);
    if (res == CRES_OK && !(*out = cres__bearer_value(a, t)))
        res = cres__oom(err, h->r->vtable->name);
    cres__free(a, answer);
    cres__free(a, token);
    return res;
}
/* The bearer of this resolve: options.token or token_file, a credentials file's token (kept
   from an earlier resolve while fresh), else the metadata server's. */
CRES__PRIVATE cres_result cres__gcp_authorize(cres__http *h, cres__gcp *g, cres_error *err) {
    const cres_allocator *a = &h->r->config.allocator;
    char *token = NULL;
    long long expires = 0;
    cres_result res;
    if (g->bearer) return CRES_OK;
    if (!g->cred.kind) {
        res = cres__gcp_bearer(h, g, &g->bearer, err);
        if (res == CRES_ERR_ENVIRONMENT && !g->token && !g->token_file && !h->metadata_answered)
            res = cres__fail(err, res,
                             "%s: no credentials: set GOOGLE_APPLICATION_CREDENTIALS, run gcloud "
                             "auth application-default login, or pass options.token_file "
                             "(--token-file); not on Google Cloud (no metadata server at %.60s)",
                             h->r->vtable->name, g->metadata);
        return res;
    }
    if ((res = cres__gcp_file_token(h, &g->cred, &token, &expires, err)) != CRES_OK) return res;
    if (!(g->bearer = cres__bearer_value(a, token))) res = cres__oom(err, h->r->vtable->name);
    cres__free_secret(a, token);
    g->bearer_expires = expires;
    g->bearer_hash = g->cred.hash;
    return res;
}

/* Before a resolve's first Google API request: the credentials (no request yet, so a file
   the library cannot use fails first), the project and zone, the token. */
CRES__PRIVATE cres_result cres__gcp_begin(cres__http *h, cres__gcp *g, int need_zone,
                                          cres_error *err) {
    cres_resolver *r = h->r;
    cres_result res = CRES_OK;
    if (!g->token && !g->token_file)
        res = cres__gcred_find(r, g->credentials_file, &g->cred, err);
    if (res == CRES_OK && g->cred.kind) cres__gcred_log(r, &g->cred);
    if (g->bearer && (!g->cred.kind || g->bearer_hash != g->cred.hash ||
                      (long long)time(NULL) + CRES__GCP_TOKEN_MARGIN >= g->bearer_expires)) {
        cres__free_secret(&r->config.allocator, g->bearer); /* stale, or from another file */
        g->bearer = NULL;
    }
    if (res == CRES_OK && !g->project) res = cres__gcp_project(r, g, err);
    if (res == CRES_OK) res = cres__gcp_locate(h, g, need_zone, err);
    if (res == CRES_OK) res = cres__gcp_authorize(h, g, err);
    return res;
}

/* After the resolve: a credentials file's token stays while fresh; the rest goes. */
CRES__PRIVATE void cres__gcp_end(const cres_allocator *a, cres__gcp *g) {
    if (!g->cred.kind || !g->bearer) {
        cres__free_secret(a, g->bearer);
        g->bearer = NULL;
    }
    cres__gcred_free(a, &g->cred);
    if (g->project_found) {
        cres__free(a, g->project);
        g->project = NULL;
        g->project_found = 0;
    }
}

/* A Google API request with the resolve's token, and the quota project a credentials file
   names (google-auth's x-goog-user-project). A 401 to a credentials file's token asks the
   token endpoint for a new one, and the request is made once more. */
CRES__PRIVATE cres_result cres__gcp_call(cres__http *h, cres__gcp *g, const char *method,
                                         const char *url, const char *body,
                                         cres_http_response *resp, cres_error *err) {
    cres_http_header headers[4];
    size_t n;
    int attempt;
    cres_result res = CRES_OK;
    for (attempt = 0;; attempt++) {
        n = 0;
        headers[n].name = cres__authorization, headers[n++].value = g->bearer;
        headers[n].name = cres__accept, headers[n++].value = cres__json_media;
        if (body) headers[n].name = cres__content_type, headers[n++].value = cres__json_media;
        if (g->cred.quota_project_id)
            headers[n].name = "x-goog-user-project", headers[n++].value = g->cred.quota_project_id;
        res = cres__http_request(h, method, url, headers, n, body, g->ca_file, resp, err);
        if (res != CRES_OK || resp->status != 401 || !g->cred.kind || attempt) return res;
        cres__log(h->r, CRES_LOG_INFO, "%s: 401 Unauthorized: asking for a new access token",
                  h->r->vtable->name);
        cres__response_free(h->r, resp);
        cres__free_secret(&h->r->config.allocator, g->bearer);
        g->bearer = NULL;
        if ((res = cres__gcp_authorize(h, g, err)) != CRES_OK) return res;
    }
}
#endif /* CRES__GOOGLE */

/* ////////////////////////////////////////////////////////////////////////////////////////
   GCE: the RUNNING instances of an instance group                                    >>gce */

#ifndef CLUSTER_RESOLVER_NO_GCE
typedef struct cres__gce_member {
    char *name, *zone, *ip; /* ip NULL until the zone's list names it */
} cres__gce_member;

typedef struct cres__gce {
    cres_resolver base;
    cres__gcp gcp;
    char *region, *group, *compute, *job, *instance_name;
    int port;
    cres__gce_member *members;
    size_t count, cap;
    const char *listing_zone; /* the zone whose instance list is being read */
} cres__gce;

CRES__PRIVATE void cres__gce_clear(cres__gce *g) {
    const cres_allocator *a = &g->base.config.allocator;
    size_t i;
    for (i = 0; i < g->count; i++) {
        cres__free(a, g->members[i].name);
        cres__free(a, g->members[i].zone);
        cres__free(a, g->members[i].ip);
    }
    g->count = 0;
}

/* One list call, following nextPageToken; each page goes to `read`. */
typedef cres_result (*cres__gce_page_fn)(cres__gce *g, const cres__json *d, int items,
                                         cres_error *err);

/* url, with "&pageToken=<token>" when there is one; NULL when out of memory. */
CRES__PRIVATE char *cres__gce_page_url(const cres_allocator *a, const char *url,
                                       const char *token) {
    size_t n = strlen(url) + (token ? strlen(token) * 3 : 0) + 16;
    char *page_url = (char *)cres__alloc(a, n);
    cres__writer w;
    if (!page_url) return NULL;
    cres__start(&w, page_url, n, NULL);
    cres__puts(&w, url);
    if (token) {
        cres__puts(&w, "&pageToken=");
        cres__put_url_encoded(&w, token);
    }
    cres__finish(&w, NULL, NULL);
    return page_url;
}

/* One page's answer: its items go to `read`; *next gets its nextPageToken (NULL: the last). */
CRES__PRIVATE cres_result cres__gce_page(cres__gce *g, const cres_http_response *resp,
                                         const char *permission, cres__gce_page_fn read,
                                         char **next, cres_error *err) {
    cres__json d;
    int t[2];
    cres_result res;
    *next = NULL;
    if (resp->status != 200) return cres__google_status_error(&g->base, resp, permission, err);
    res = cres__json_parse(&d, resp->body, resp->body_len, &g->base.config.allocator, "gce: list",
                           CRES_ERR_UNEXPECTED_RESPONSE, err);
    if (res != CRES_OK) return res;
    cres__json_pick_packed(&d, 0, "items\0nextPageToken\0", t, 2);
    if (d.t[0].type != JSMN_OBJECT ||
        (t[0] >= 0 && !cres__json_is_null(&d, t[0]) && d.t[t[0]].type != JSMN_ARRAY))
        res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                         "gce: a list answer without an \"items\" list");
    if (res == CRES_OK && t[0] >= 0 && d.t[t[0]].type == JSMN_ARRAY) res = read(g, &d, t[0], err);
    if (res == CRES_OK && t[1] >= 0 && d.t[t[1]].type == JSMN_STRING &&
        d.t[t[1]].end > d.t[t[1]].start && cres__json_strdup(&d, t[1], next) == 0)
        res = cres__oom(err, "gce");
    cres__json_free(&d);
    return res;
}

CRES__PRIVATE cres_result cres__gce_list(cres__gce *g, cres__http *h, const char *method,
                                         const char *url, const char *body,
                                         const char *permission, cres__gce_page_fn read,
                                         cres_error *err) {
    const cres_allocator *a = &g->base.config.allocator;
    char *token = NULL, *page_url, *previous = NULL;
    int pages = 0;
    cres_result res = CRES_OK;
    for (;;) {
        cres_http_response resp;
        if (!(page_url = cres__gce_page_url(a, url, token))) {
            res = cres__oom(err, "gce");
            break;
        }
        res = cres__gcp_call(h, &g->gcp, method, page_url, body, &resp, err);
        cres__free(a, page_url);
        cres__free(a, previous);
        previous = token;
        token = NULL;
        if (res != CRES_OK) break;
        res = cres__gce_page(g, &resp, permission, read, &token, err);
        cres__response_free(&g->base, &resp);
        if (res == CRES_OK && token && previous && strcmp(token, previous) == 0)
            res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                             "gce: the server sent the same pageToken twice");
        if (res == CRES_OK && token && ++pages >= CRES_MAX_GCP_PAGES)
            res = cres__fail(err, CRES_ERR_LIMIT, "gce: more than %d pages in one list",
                             CRES_MAX_GCP_PAGES);
        if (res != CRES_OK || !token) break;
    }
    cres__free(a, token);
    cres__free(a, previous);
    return res;
}

/* listInstances items: {"instance": ".../zones/<zone>/instances/<name>", "status": ...}. */
CRES__PRIVATE cres_result cres__gce_read_members(cres__gce *g, const cres__json *d, int items,
                                                 cres_error *err) {
    static const char *const keys[] = {"instance"};
    const cres_allocator *a = &g->base.config.allocator;
    int i, e, v;
    for (i = 0, e = items + 1; i < d->t[items].size; i++, e = cres__json_next(d, e)) {
        char *url;
        const char *zones, *inst;
        cres__gce_member *m;
        cres__json_pick(d, e, keys, &v, 1);
        if (v < 0 || d->t[v].type != JSMN_STRING)
            return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                              "gce: a group member without an \"instance\" URL");
        if (cres__json_strdup(d, v, &url) == 0) return cres__oom(err, "gce");
        /* ".../zones/<zone>/instances/<name>": both go into URLs, so both must be names */
        zones = strstr(url, "/zones/");
        inst = zones ? strchr(zones + 7, '/') : NULL;
        if (inst && strncmp(inst, "/instances/", 11) == 0) {
            char zone[130];
            size_t zn = (size_t)(inst - zones - 7);
            snprintf(zone, sizeof zone, "%.*s", (int)(zn < 129 ? zn : 129), zones + 7);
            if (zn > 128 || !cres__resource_name_ok(zone) || !cres__resource_name_ok(inst + 11))
                inst = NULL;
        } else {
            inst = NULL;
        }
        if (!inst) {
            char q[CRES__QUOTE_SIZE];
            cres_result res = cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                                         "gce: cannot read the instance URL %s",
                                         cres__quote_str(q, sizeof q, url));
            cres__free(a, url);
            return res;
        }
        if (!cres__grow(a, (void **)&g->members, &g->cap, sizeof *g->members, g->count + 1)) {
            cres__free(a, url);
            return cres__oom(err, "gce");
        }
        m = &g->members[g->count];
        m->ip = NULL;
        m->zone = cres__strndup(a, zones + 7, (size_t)(inst - zones - 7));
        m->name = cres__strdup(a, inst + 11);
        cres__free(a, url);
        if (!m->zone || !m->name) {
            cres__free(a, m->zone);
            cres__free(a, m->name);
            return cres__oom(err, "gce");
        }
        g->count++;
    }
    return CRES_OK;
}

/* Instance names are unique within a zone only: members are keyed by name and zone. */
CRES__PRIVATE int cres__cmp_member_name(const void *x, const void *y) {
    const cres__gce_member *a = (const cres__gce_member *)x, *b = (const cres__gce_member *)y;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->zone, b->zone);
}

CRES__PRIVATE int cres__cmp_member_natural(const void *x, const void *y) {
    const cres__gce_member *a = (const cres__gce_member *)x, *b = (const cres__gce_member *)y;
    int c = cres__natural_cmp(a->name, b->name);
    return c ? c : strcmp(a->zone, b->zone);
}

/* Zone instance list items: {"name": ..., "networkInterfaces": [{"networkIP": ...}]}; the
   members (sorted by name) get their addresses. */
CRES__PRIVATE cres_result cres__gce_read_addresses(cres__gce *g, const cres__json *d, int items,
                                                   cres_error *err) {
    static const char *const keys[] = {"name", "networkInterfaces"};
    static const char *const nic_keys[] = {"networkIP"};
    int i, e, v[2], ip;
    char name[256], q[CRES__QUOTE_SIZE];
    for (i = 0, e = items + 1; i < d->t[items].size; i++, e = cres__json_next(d, e)) {
        cres__gce_member key, *m;
        long n;
        cres__json_pick(d, e, keys, v, 2);
        if (v[0] < 0 || d->t[v[0]].type != JSMN_STRING ||
            d->t[v[0]].end - d->t[v[0]].start >= (int)sizeof name)
            continue;
        n = cres__json_unescape(d->s + d->t[v[0]].start,
                                (size_t)(d->t[v[0]].end - d->t[v[0]].start), name);
        name[n < 0 ? 0 : n] = '\0';
        key.name = name;
        key.zone = (char *)(size_t)g->listing_zone;
        m = (cres__gce_member *)bsearch(&key, g->members, g->count, sizeof *g->members,
                                        cres__cmp_member_name);
        if (!m) continue; /* an instance of the zone that is not in the group */
        ip = -1;
        if (v[1] >= 0 && d->t[v[1]].type == JSMN_ARRAY && d->t[v[1]].size > 0)
            cres__json_pick(d, v[1] + 1, nic_keys, &ip, 1);
        if (ip < 0 || d->t[ip].type != JSMN_STRING || d->t[ip].end == d->t[ip].start)
            return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                              "gce: instance %s has no networkInterfaces[0].networkIP",
                              cres__quote_str(q, sizeof q, name));
        cres__free(&g->base.config.allocator, m->ip);
        if (cres__json_strdup(d, ip, &m->ip) == 0) return cres__oom(err, "gce");
        if (strlen(m->ip) > 64 || cres__bad_text(m->ip, 1))
            return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                              "gce: instance %s has a malformed networkIP",
                              cres__quote_str(q, sizeof q, name));
    }
    return CRES_OK;
}

/* The URL of a list call, from printf-style parts (paths hold only names we checked). */
CRES__PRIVATE char *cres__gce_url(cres__gce *g, const char *fmt, const char *a1, const char *a2,
                                  const char *a3) {
    size_t n =
        strlen(g->compute) + strlen(fmt) + strlen(a1) + strlen(a2) + (a3 ? strlen(a3) : 0) + 1;
    char *s = (char *)cres__alloc(&g->base.config.allocator, n);
    if (s) {
        size_t k = (size_t)snprintf(s, n, "%s", g->compute);
        snprintf(s + k, n - k, fmt, a1, a2, a3 ? a3 : "");
    }
    return s;
}

/* The group's RUNNING members (name and zone), from its listInstances pages. */
CRES__PRIVATE cres_result cres__gce_list_group(cres__gce *g, cres__http *h,
                                               cres_error *err) {
    char *url =
        g->region
            ? cres__gce_url(
                  g, "/projects/%s/regions/%s/instanceGroups/%s/listInstances?maxResults=500",
                  g->gcp.project, g->region, g->group)
            : cres__gce_url(g,
                            "/projects/%s/zones/%s/instanceGroups/%s/listInstances?maxResults=500",
                            g->gcp.project, g->gcp.zone, g->group);
    cres_result res =
        url ? cres__gce_list(g, h, cres__post, url, "{\"instanceState\": \"RUNNING\"}",
                             "compute.instanceGroups.list", cres__gce_read_members, err)
            : cres__oom(err, "gce");
    cres__free(&g->base.config.allocator, url);
    return res;
}

/* The members' addresses: one list of RUNNING instances (names and IPs only) per zone. */
CRES__PRIVATE cres_result cres__gce_list_zones(cres__gce *g, cres__http *h,
                                               cres_error *err) {
    cres_result res = CRES_OK;
    size_t i, k;
    if (g->count) qsort(g->members, g->count, sizeof *g->members, cres__cmp_member_name);
    for (i = 0; res == CRES_OK && i < g->count; i++) { /* each zone once, in name order */
        char *url;
        for (k = 0; k < i && strcmp(g->members[k].zone, g->members[i].zone) != 0; k++) {}
        if (k < i) continue;
        g->listing_zone = g->members[i].zone;
        url = cres__gce_url(
            g,
            "/projects/%s/zones/%s/instances?filter=status%%20%%3D%%20%%22RUNNING%%22&fields=items"
            "%%28name%%2CnetworkInterfaces%%28networkIP%%29%%29%%2CnextPageToken&maxResults=500%s",
            g->gcp.project, g->members[i].zone, NULL);
        res = url ? cres__gce_list(g, h, "GET", url, NULL, "compute.instances.list",
                                   cres__gce_read_addresses, err)
                  : cres__oom(err, "gce");
        cres__free(&g->base.config.allocator, url);
    }
    return res;
}

/* The job: members in natural name order; the own instance (`own`, else options) marked. */
CRES__PRIVATE cres_result cres__gce_spec(cres__gce *g, const char *own, cres_cluster_spec **out,
                                         cres_error *err) {
    const cres_allocator *a = &g->base.config.allocator;
    const char *mine = g->instance_name ? g->instance_name : own;
    cres_result res = cres_spec_create(a, out, err);
    size_t i;
    if (res == CRES_OK) /* an empty group: an empty job */
        res = cres_spec_add_job(*out, g->job, NULL, 0, err);
    if (res == CRES_OK && g->count)
        qsort(g->members, g->count, sizeof *g->members, cres__cmp_member_natural);
    for (i = 0; res == CRES_OK && i < g->count; i++) {
        const cres__gce_member *m = &g->members[i];
        char *address, q[CRES__QUOTE_SIZE];
        if (!m->ip)
            return cres__fail(err, CRES_ERR_NOT_READY,
                              "gce: instance %s is in the group but not RUNNING in zone %s",
                              cres__quote_str(q, sizeof q, m->name), m->zone);
        if (!(address = cres__join_host_port(a, m->ip, g->port))) return cres__oom(err, "gce");
        if ((res = cres_spec_add_task(*out, g->job, (int)i, address, err)) != CRES_OK)
            res = cres__wrap(err, res, CRES_ERR_UNEXPECTED_RESPONSE, "gce: ");
        cres__free(a, address);
        if (res == CRES_OK && mine && strcmp(mine, m->name) == 0)
            res = cres_set_detected_task(&g->base, g->job, (int)i, err);
    }
    return res;
}

CRES__PRIVATE cres_result cres__gce_resolve(cres_resolver *r, cres_cluster_spec **out,
                                            cres_error *err) {
    cres__gce *g = (cres__gce *)r;
    const cres_allocator *a = &r->config.allocator;
    char *own = NULL;
    cres__http h;
    cres_result res;
    if ((res = cres__http_begin(&h, r, err)) != CRES_OK) return res;
    cres__gce_clear(g);
    res = cres__gcp_begin(&h, &g->gcp, !g->region, err);
    if (res == CRES_OK) res = cres__gce_list_group(g, &h, err);
    if (res == CRES_OK) res = cres__gce_list_zones(g, &h, err);
    /* The own instance, when the metadata server is known to be there (it gave the token, or
       was named); off Google Cloud the own task stays unknown rather than costing a timeout. */
    if (res == CRES_OK && !g->instance_name && (g->gcp.metadata_known || h.metadata_answered))
        res = cres__metadata_optional(&h, g->gcp.metadata, "instance/name", &own, err);
    if (res == CRES_OK) res = cres__gce_spec(g, own, out, err);
    cres__log(r, CRES_LOG_DEBUG, "gce: %zu instances in %d requests", g->count, h.requests);
    cres__http_end(&h);
    cres__gce_clear(g);
    cres__gcp_end(a, &g->gcp);
    cres__free(a, own);
    return res;
}

CRES__PRIVATE void cres__gce_destroy(cres_resolver *r) {
    cres__gce *g = (cres__gce *)r;
    const cres_allocator *a = &r->config.allocator;
    cres__gce_clear(g);
    cres__free(a, g->members);
    cres__gcp_free(a, &g->gcp);
    cres__free(a, g->region);
    cres__free(a, g->group);
    cres__free(a, g->compute);
    cres__free(a, g->job);
    cres__free(a, g->instance_name);
}

CRES__BYTE_ALIGNED static const char cres__gce_vtable_name[] = "gce";
static const cres_resolver_vtable cres__gce_vtable = {
    cres__gce_vtable_name, cres__gce_resolve, NULL, NULL, cres__gce_destroy, NULL, NULL};

CRES_API cres_result cres_gce_resolver_create(const cres_gce_options *o, cres_resolver **out,
                                              cres_error *err) {
    cres_gce_options none;
    cres_resolver *r;
    cres__gce *g;
    const cres_allocator *a;
    cres_result res;
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "gce: out is NULL");
    *out = NULL;
    if (!cres__resource_name_ok(o->instance_group))
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "gce: options.instance_group is missing or not a resource name");
    if ((o->project && !cres__resource_name_ok(o->project)) ||
        (o->zone && !cres__resource_name_ok(o->zone)) ||
        (o->region && !cres__resource_name_ok(o->region)) || o->port < 0 || o->port > 65535 ||
        (o->compute_url && !cres__base_url_ok(o->compute_url)))
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "gce: project, zone, region, port or compute_url (http:// or https:// "
                          "and a host) is malformed");
    if ((res = cres_resolver_new(sizeof *g, &cres__gce_vtable, o->config, &r, err)) != CRES_OK)
        return res;
    g = (cres__gce *)r;
    a = &r->config.allocator;
    g->port = o->port ? o->port : CRES__DEFAULT_PORT;
    res = cres__gcp_init(r, &g->gcp, o->project, o->zone, o->metadata_url, o->token, o->token_file,
                         o->credentials_file, o->ca_file, err);
    if (res == CRES_OK &&
        !(cres__opt_copy(a, &g->region, o->region) &&
          cres__opt_copy(a, &g->group, o->instance_group) &&
          cres__url_copy(a, &g->compute,
                         o->compute_url ? o->compute_url
                                        : "https://compute.googleapis.com/compute/v1") &&
          cres__opt_copy(a, &g->job, o->job_name ? o->job_name : "worker") &&
          cres__opt_copy(a, &g->instance_name, o->instance_name)))
        res = cres__oom(err, "gce");
    if (res == CRES_OK) res = cres__check_job_name(g->job, err);
    if (res == CRES_OK) res = cres_set_rpc_layer(r, "grpc", err);
    if (res == CRES_OK) res = cres__apply_options(r, o->task_type, o->task_id, o->rpc_layer, err);
    return cres__created(r, res, out);
}
#else
CRES__LEFT_OUT(cres_gce_resolver_create, cres_gce_options, "gce", "CLUSTER_RESOLVER_NO_GCE")
#endif /* CLUSTER_RESOLVER_NO_GCE */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Cloud TPU                                                                           >>tpu */

#ifndef CLUSTER_RESOLVER_NO_TPU
typedef struct cres__tpu {
    cres_resolver base;
    cres__gcp gcp;
    char *name;            /* a node name, "grpc://..." endpoints, or "local" */
    char *api, *version, *job, *coordinator_name, *coordinator_address;
    char *accelerator_type; /* from the node or the metadata, for num_accelerators */
    int allow_unhealthy, per_host;
    const char *name_from;  /* where the name came from, for messages */
    cres_result name_fault; /* whose fault a malformed endpoint list is */
} cres__tpu;

/* Appends the endpoints "grpc://a:1,b,[v6]:2" as tasks of job (8470 when no port). A
   malformed entry is the fault of `from` (an option, a variable, the metadata server). */
CRES__PRIVATE cres_result cres__tpu_endpoints(cres__tpu *t, cres_cluster_spec *spec,
                                              const char *list, const char *from, cres_result fault,
                                              cres_error *err) {
    const cres_allocator *a = &t->base.config.allocator;
    const char *p = list;
    int index = 0;
    cres_result res = CRES_OK;
    while (res == CRES_OK && *p) {
        size_t n = strcspn(p, ",");
        char *item = cres__strndup(a, p, n), *address = NULL;
        const char *at = item, *host;
        size_t host_len;
        int port;
        if (!item) return cres__oom(err, "tpu");
        if (strncmp(at, "grpc://", 7) == 0) at += 7;
        if (!*at || !cres__split_address(at, &host, &host_len, &port) || host_len == 0 ||
            host_len >= 256) {
            char q[CRES__QUOTE_SIZE];
            res = cres__fail(err, fault, "tpu: %s: cannot read the endpoint %s", from,
                             cres__quote(q, sizeof q, item, n));
        } else if (port >= 0) {
            address = cres__strdup(a, at);
        } else {
            char host_copy[256];
            snprintf(host_copy, sizeof host_copy, "%.*s", (int)host_len, host);
            address = cres__join_host_port(a, host_copy, CRES__DEFAULT_PORT);
        }
        if (res == CRES_OK && !address) res = cres__oom(err, "tpu");
        if (res == CRES_OK &&
            (res = cres_spec_add_task(spec, t->job, index++, address, err)) != CRES_OK) {
            char prefix[96];
            snprintf(prefix, sizeof prefix, "tpu: %s: ", from);
            res = cres__wrap(err, res, fault, prefix);
        }
        cres__free(a, address);
        cres__free(a, item);
        p += n;
        if (*p == ',' && *++p == '\0') /* a trailing comma leaves an empty entry */
            res = res == CRES_OK ? cres__fail(err, fault, "tpu: %s: an empty endpoint", from) : res;
    }
    return res;
}

/* worker-network-endpoints: "ip1,ip2" or "name:uid:ip,..." -> "ip1,ip2" (in place). An entry
   made only of hex digits, dots and colons is an address (IPv6 included); otherwise the part
   after its second colon is. */
CRES__PRIVATE void cres__tpu_endpoint_ips(char *s) {
    char *out = s, *p = s;
    while (*p) {
        size_t n = strcspn(p, ",");
        char *last = p + n;
        size_t lit = strspn(p, "0123456789abcdefABCDEF.:");
        char *first = (char *)memchr(p, ':', n);
        char *second = first ? (char *)memchr(first + 1, ':', (size_t)(last - first - 1)) : NULL;
        if (lit < n && second) p = second + 1; /* name:uid:ip */
        if (out != s) *out++ = ',';
        memmove(out, p, (size_t)(last - p));
        out += last - p;
        p = *last ? last + 1 : last;
    }
    *out = '\0';
}

/* On a TPU VM: workers from $TPU_WORKER_HOSTNAMES, else the metadata attributes. */
/* With both set, TPU_PROCESS_ADDRESSES (the members) lists as many processes on each host
   of TPU_WORKER_HOSTNAMES: a count that is not a multiple of the hosts names no layout. */
CRES__PRIVATE cres_result cres__tpu_processes_per_host(const cres__tpu *t,
                                                       const cres_cluster_spec *spec,
                                                       cres_error *err) {
    const char *hosts = cres_resolver_getenv(&t->base, "TPU_WORKER_HOSTNAMES"), *p;
    size_t n = 1, processes = cres_spec_tasks_count(spec, t->job);
    if (!hosts || cres__is_blank(hosts) ||
        !cres__env_set(&t->base, "TPU_PROCESS_ADDRESSES"))
        return CRES_OK;
    for (p = hosts; *p; p++) n += *p == ',';
    if (processes % n == 0) return CRES_OK;
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "tpu: TPU_PROCESS_ADDRESSES lists %zu processes, not a number for each of "
                      "the %zu hosts of TPU_WORKER_HOSTNAMES",
                      processes, n);
}

CRES__PRIVATE cres_result cres__tpu_local(cres__tpu *t, cres__http *h, cres_cluster_spec *spec,
                                          cres_error *err) {
    const cres_allocator *a = &t->base.config.allocator;
    const char *from = cres__env_set(&t->base, "TPU_PROCESS_ADDRESSES") ? "TPU_PROCESS_ADDRESSES"
                                                                          : "TPU_WORKER_HOSTNAMES";
    const char *hosts = cres_resolver_getenv(&t->base, from);
    const char *id = cres_resolver_getenv(&t->base, "TPU_WORKER_ID");
    if (id && !*id) id = NULL; /* empty: as if unset */
    char *endpoints = NULL, *number = NULL, *type = NULL;
    cres_result res = CRES_OK, fault = CRES_ERR_ENVIRONMENT;
    const char *own_from = "TPU_WORKER_ID";
    long long own = -1;
    if (hosts && *hosts) {
        if (id && (cres__parse_decimal(id, strlen(id), &own) != 1 || own < 0))
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "tpu: TPU_WORKER_ID must be a worker index");
        res = cres__tpu_endpoints(t, spec, hosts, from, CRES_ERR_ENVIRONMENT, err);
        if (res == CRES_OK) res = cres__tpu_processes_per_host(t, spec, err);
    } else if ((res = cres__metadata_optional(h, t->gcp.metadata,
                                              "instance/attributes/worker-network-endpoints",
                                              &endpoints, err)) == CRES_OK &&
               endpoints && *endpoints) {
        cres__tpu_endpoint_ips(endpoints);
        res = cres__tpu_endpoints(t, spec, endpoints, "metadata worker-network-endpoints",
                                  CRES_ERR_UNEXPECTED_RESPONSE, err);
        if (res == CRES_OK)
            res = cres__metadata_optional(h, t->gcp.metadata,
                                          "instance/attributes/agent-worker-number", &number, err);
        own_from = "metadata agent-worker-number";
        fault = CRES_ERR_UNEXPECTED_RESPONSE;
        if (res == CRES_OK && number &&
            (cres__parse_decimal(number, strlen(number), &own) != 1 || own < 0))
            res = cres__fail(err, fault, "tpu: metadata agent-worker-number is not a worker index");
        if (res == CRES_OK && !t->accelerator_type &&
            (res = cres__metadata_optional(h, t->gcp.metadata,
                                           "instance/attributes/accelerator-type", &type, err)) ==
                CRES_OK)
            t->accelerator_type = type, type = NULL;
    } else if (res == CRES_OK && id) { /* a worker of several, but which are the others? */
        char q[CRES__QUOTE_SIZE];
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "tpu: TPU_WORKER_ID=%s is set, but neither TPU_PROCESS_ADDRESSES, "
                         "TPU_WORKER_HOSTNAMES nor the metadata server names the workers",
                         cres__quote_str(q, sizeof q, id));
    } /* else: TF's local TPU, an empty cluster */
    if (res == CRES_OK && own >= 0) {
        if (own >= (long long)cres_spec_tasks_count(spec, t->job))
            res = cres__fail(err, fault, "tpu: %s: worker %lld is not one of the %zu workers",
                             own_from, own, cres_spec_tasks_count(spec, t->job));
        else res = cres_set_detected_task(&t->base, t->job, (int)own, err);
    } else if (res == CRES_OK && cres_spec_tasks_count(spec, t->job) > 1 &&
               !t->base.task_overridden) { /* TF's worker 0 would make every host rank 0 */
        t->base.task_id = CRES_NO_TASK;
        t->base.no_task_why = "the slice has several workers, and neither TPU_WORKER_ID nor the "
                              "metadata agent-worker-number says which this is";
    }
    cres__free(a, endpoints);
    cres__free(a, number);
    cres__free(a, type);
    return res;
}

/* The node from the Cloud TPU API: READY, HEALTHY (unless allowed), its endpoints. */
CRES__PRIVATE cres_result cres__tpu_node(cres__tpu *t, const cres__json *d, cres_cluster_spec *spec,
                                         cres_error *err) {
    static const char *const keys[] = {"state", "health", "networkEndpoints", "acceleratorType",
                                       "ipAddress"};
    static const char *const ep_keys[] = {"ipAddress", "port"};
    const cres_allocator *a = &t->base.config.allocator;
    char state[32] = "", health[32] = "", q[CRES__QUOTE_SIZE];
    int v[5], i, e, ep[2], count, old_style;
    cres_result res = CRES_OK;
    cres__json_pick(d, 0, keys, v, 5);
    if (v[0] >= 0 && d->t[v[0]].type == JSMN_STRING)
        snprintf(state, sizeof state, "%.*s", d->t[v[0]].end - d->t[v[0]].start,
                 d->s + d->t[v[0]].start);
    if (v[1] >= 0 && d->t[v[1]].type == JSMN_STRING)
        snprintf(health, sizeof health, "%.*s", d->t[v[1]].end - d->t[v[1]].start,
                 d->s + d->t[v[1]].start);
    cres__quote_str(q, sizeof q, t->name);
    if (strcmp(state, "PREEMPTED") == 0 || strcmp(state, "TERMINATED") == 0)
        return cres__fail(err, CRES_ERR_NOT_READY,
                          "tpu: TPU %s is %s and will not recover: recreate it", q, state);
    if (strcmp(state, "READY") != 0)
        return cres__fail(err, CRES_ERR_NOT_READY, "tpu: TPU %s is not ready; state: %s", q,
                          state[0] ? state : "(none)");
    if (health[0] && strcmp(health, "HEALTHY") != 0 && !t->allow_unhealthy)
        return cres__fail(err, CRES_ERR_NOT_READY, "tpu: TPU %s is %s, not HEALTHY", q, health);
    if (v[3] >= 0 && d->t[v[3]].type == JSMN_STRING && !t->accelerator_type &&
        cres__json_strdup(d, v[3], &t->accelerator_type) == 0)
        return cres__oom(err, "tpu");
    /* v1 nodes from before networkEndpoints have one deprecated top-level ipAddress and port */
    old_style = (v[2] < 0 || d->t[v[2]].type != JSMN_ARRAY || d->t[v[2]].size == 0) && v[4] >= 0;
    if (!old_style && (v[2] < 0 || d->t[v[2]].type != JSMN_ARRAY || d->t[v[2]].size == 0))
        return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE, "tpu: TPU %s has no networkEndpoints",
                          q);
    count = old_style ? 1 : d->t[v[2]].size;
    for (i = 0, e = old_style ? 0 : v[2] + 1; res == CRES_OK && i < count;
         i++, e = cres__json_next(d, e)) {
        char ip[64], *address;
        int port = CRES__DEFAULT_PORT;
        cres__json_pick(d, e, ep_keys, ep, 2);
        if (ep[0] < 0 || d->t[ep[0]].type != JSMN_STRING || d->t[ep[0]].end == d->t[ep[0]].start ||
            d->t[ep[0]].end - d->t[ep[0]].start >= (int)sizeof ip)
            return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                              "tpu: TPU %s endpoint %d has no ipAddress", q, i);
        snprintf(ip, sizeof ip, "%.*s", d->t[ep[0]].end - d->t[ep[0]].start,
                 d->s + d->t[ep[0]].start);
        if (ep[1] >= 0 && !cres__json_is_null(d, ep[1])) {
            char why[96], qp[CRES__QUOTE_SIZE];
            if (!cres__json_index(d, ep[1], 1, &port, why, sizeof why) || port < 1 || port > 65535)
                return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                                  "tpu: TPU %s endpoint %d: port %s is not 1 to 65535", q, i,
                                  cres__json_quote(d, ep[1], qp, sizeof qp));
        }
        if (cres__bad_text(ip, 1))
            return cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE,
                              "tpu: TPU %s endpoint %d: bad ipAddress", q, i);
        if (!(address = cres__join_host_port(a, ip, port))) return cres__oom(err, "tpu");
        res = cres_spec_add_task(spec, t->job, i, address, err);
        cres__free(a, address);
    }
    return res;
}

CRES__PRIVATE cres_result cres__tpu_api(cres__tpu *t, cres__http *h, cres_cluster_spec *spec,
                                        cres_error *err) {
    const cres_allocator *a = &t->base.config.allocator;
    char *url = NULL;
    cres_http_response resp;
    cres__json d;
    size_t n;
    cres_result res = cres__gcp_begin(h, &t->gcp, 1, err);
    if (res == CRES_OK) {
        n = strlen(t->api) + strlen(t->version) + strlen(t->gcp.project) + strlen(t->gcp.zone) +
            strlen(t->name) + 48;
        if ((url = (char *)cres__alloc(a, n)) == NULL) res = cres__oom(err, "tpu");
        else
            snprintf(url, n, "%s/%s/projects/%s/locations/%s/nodes/%s", t->api, t->version,
                     t->gcp.project, t->gcp.zone, t->name);
    }
    if (res == CRES_OK) {
        res = cres__gcp_call(h, &t->gcp, "GET", url, NULL, &resp, err);
        if (res == CRES_OK && resp.status != 200)
            res = cres__google_status_error(&t->base, &resp, "tpu.nodes.get", err);
        if (res == CRES_OK) {
            res = cres__json_parse(&d, resp.body, resp.body_len, a, "tpu: node",
                                   CRES_ERR_UNEXPECTED_RESPONSE, err);
            if (res == CRES_OK && d.t[0].type != JSMN_OBJECT)
                res =
                    cres__fail(err, CRES_ERR_UNEXPECTED_RESPONSE, "tpu: the node is not an object");
            else if (res == CRES_OK) res = cres__tpu_node(t, &d, spec, err);
            if (d.t) cres__json_free(&d);
        }
        if (resp.body) cres__response_free(&t->base, &resp);
    }
    cres__gcp_end(a, &t->gcp);
    cres__free(a, url);
    return res;
}

CRES__PRIVATE cres_result cres__tpu_resolve(cres_resolver *r, cres_cluster_spec **out,
                                            cres_error *err) {
    cres__tpu *t = (cres__tpu *)r;
    cres__http h;
    cres_result res = cres_spec_create(&r->config.allocator, out, err);
    int local = strcmp(t->name, "local") == 0;
    const char *workers = cres__env_set(r, "TPU_PROCESS_ADDRESSES")
                              ? cres_resolver_getenv(r, "TPU_PROCESS_ADDRESSES")
                              : cres_resolver_getenv(r, "TPU_WORKER_HOSTNAMES");
    if (res != CRES_OK) return res;
    if (!local && (strncmp(t->name, "grpc://", 7) == 0 || strchr(t->name, ':'))) {
        /* no API call */
        res = cres__tpu_endpoints(t, *out, t->name, t->name_from, t->name_fault, err);
    } else if (local && workers &&
               *workers) { /* the environment names the workers: no transport needed */
        memset(&h, 0, sizeof h);
        h.r = r;
        res = cres__tpu_local(t, &h, *out, err);
    } else if ((res = cres__http_begin(&h, r, err)) == CRES_OK) {
        res = local ? cres__tpu_local(t, &h, *out, err) : cres__tpu_api(t, &h, *out, err);
        cres__http_end(&h);
    }
    if (res == CRES_OK && t->coordinator_name && t->coordinator_address &&
        !(local && cres_spec_jobs_count(*out) == 0))
        res = cres_spec_add_task(*out, t->coordinator_name, 0, t->coordinator_address, err);
    return res;
}

/* TPU devices one host sees, by accelerator type "<generation>-<size>": v2 and v3 hosts
   have 8 cores; v4 and v5p hosts 4 chips (size counts TensorCores, two per chip); v5e
   ("v5litepod") and v6e slices of up to 8 chips are one host, larger ones have 4 per host. */
CRES__PRIVATE int cres__tpu_per_host(const char *type) {
    const char *dash = type ? strrchr(type, '-') : NULL;
    long long size;
    if (!dash || cres__parse_decimal(dash + 1, strlen(dash + 1), &size) != 1 || size <= 0) return 0;
    if (strncmp(type, "v2-", 3) == 0 || strncmp(type, "v3-", 3) == 0)
        return size < 8 ? (int)size : 8;
    if (strncmp(type, "v4-", 3) == 0 || strncmp(type, "v5p-", 4) == 0)
        return size / 2 < 4 ? (int)(size / 2) : 4;
    if (strncmp(type, "v5litepod-", 10) == 0 || strncmp(type, "v5e-", 4) == 0 ||
        strncmp(type, "v6e-", 4) == 0)
        return size <= 8 ? (int)size : 4;
    return 0;
}

CRES__PRIVATE cres_result cres__tpu_accelerators(cres_resolver *r, const char *task_type,
                                                 int task_id, cres_accelerators *out,
                                                 cres_error *err) {
    cres__tpu *t = (cres__tpu *)r;
    int n = t->per_host ? t->per_host : cres__tpu_per_host(t->accelerator_type);
    (void)task_type;
    (void)task_id;
    if (!n) {
        char q[CRES__QUOTE_SIZE];
        const char *type = t->accelerator_type ? t->accelerator_type : "";
        return cres__fail(
            err, CRES_ERR_UNSUPPORTED,
            "tpu: TPU cores per host unknown for accelerator type %s (resolve first, or set "
            "options.accelerators_per_host)",
            cres__quote_str(q, sizeof q, type));
    }
    strcpy(out->items[0].type, "TPU");
    out->items[0].count = n;
    out->count = 1;
    return CRES_OK;
}

CRES__PRIVATE cres_result cres__tpu_master(cres_resolver *r, const char *task_type, int task_id,
                                           const char *rpc_layer, char *buf, size_t cap,
                                           size_t *out_len, cres_error *err) {
    cres_cluster_spec *spec;
    cres_result res = cres_resolve(r, &spec, err);
    if (res != CRES_OK) return res;
    if (cres_spec_jobs_count(spec) == 0 && !task_type && task_id < 0) /* TF's local TPU: "" */
        res = cres__write_master("", NULL, buf, cap, out_len, err);
    else
        res = cres__master_in_spec(r, spec, task_type, task_id, rpc_layer, "", buf, cap, out_len,
                                   err);
    cres_spec_free(spec);
    return res;
}

CRES__PRIVATE void cres__tpu_destroy(cres_resolver *r) {
    cres__tpu *t = (cres__tpu *)r;
    const cres_allocator *a = &r->config.allocator;
    cres__gcp_free(a, &t->gcp);
    cres__free(a, t->name);
    cres__free(a, t->api);
    cres__free(a, t->version);
    cres__free(a, t->job);
    cres__free(a, t->coordinator_name);
    cres__free(a, t->coordinator_address);
    cres__free(a, t->accelerator_type);
}

/* A TPU VM's launch: rank 0 is worker 0 at JAX's coordinator port, 8482, as across slices (8470
   is the TPU's gRPC port, TF's master; 8476 is the TPU runtime's, in TPU_PROCESS_ADDRESSES):
   a coordinator started at either would find the port taken. */
CRES__PRIVATE cres_result cres__tpu_launch(cres_resolver *r, cres_launch_info *out,
                                           cres_error *err) {
    cres__writer w;
    cres_result res = cres__launch_from_spec(r, out, err);
    if (res != CRES_OK || !out->master_host[0]) return res;
    out->master_port = 8482;
    cres__start(&w, out->master_address, sizeof out->master_address, NULL);
    if (!cres__put_host_port(&w, out->master_host, out->master_port)) cres__puts(&w, "");
    return cres__finish(&w, NULL, err);
}

CRES__BYTE_ALIGNED static const char cres__tpu_vtable_name[] = "tpu";
static const cres_resolver_vtable cres__tpu_vtable = {
    cres__tpu_vtable_name, cres__tpu_resolve, cres__tpu_master, cres__tpu_accelerators,
    cres__tpu_destroy, NULL, cres__tpu_launch};

/* The TPU's name: options, $KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS, $TPU_NAME, or $TPU_CONFIG's
   {"tpu_node_name", "project", "zone"} (which may also give project and zone). */
CRES__PRIVATE cres_result cres__tpu_name(cres__tpu *t, const cres_tpu_options *o, cres_error *err) {
    static const char *const keys[] = {"tpu_node_name", "project", "zone"};
    const cres_allocator *a = &t->base.config.allocator;
    static const char *const vars[] = {"KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", "TPU_NAME"};
    const char *name = o->tpu, *config;
    cres__json d;
    int v[3], i;
    char **slot[3];
    cres_result res;
    t->name_from = "options.tpu";
    t->name_fault = CRES_ERR_INVALID_ARGUMENT;
    /* GKE's and KubeRay's TPU webhooks set TPU_NAME beside the slice's own workers: with
       those named, this is the TPU VM's slice, never a Cloud TPU to look up */
    if ((!name || !*name) && (cres__env_set(&t->base, "TPU_PROCESS_ADDRESSES") ||
                              cres__env_set(&t->base, "TPU_WORKER_HOSTNAMES")))
        name = "local";
    for (i = 0; i < 2 && (!name || !*name); i++) {
        name = cres_resolver_getenv(&t->base, vars[i]);
        t->name_from = vars[i];
        t->name_fault = CRES_ERR_ENVIRONMENT;
    }
    if (name && *name) return cres__opt_copy(a, &t->name, name) ? CRES_OK : cres__oom(err, "tpu");
    t->name_from = "TPU_CONFIG";
    config = cres_resolver_getenv(&t->base, "TPU_CONFIG");
    if (!config || cres__is_blank(config))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "tpu: no TPU name: pass options.tpu (a name, grpc://host:port, or local) "
                          "or set TPU_NAME");
    if ((res = cres__json_parse_document(&d, config, strlen(config), a, "TPU_CONFIG",
                                         CRES_ERR_ENVIRONMENT, err)) != CRES_OK)
        return res;
    cres__json_pick(&d, 0, keys, v, 3);
    slot[0] = &t->name, slot[1] = &t->gcp.project, slot[2] = &t->gcp.zone;
    for (i = 0; i < 3 && res == CRES_OK; i++) {
        if (v[i] < 0 || cres__json_is_null(&d, v[i]) || *slot[i]) continue; /* options win */
        if (d.t[v[i]].type != JSMN_STRING)
            res = cres__fail(err, CRES_ERR_ENVIRONMENT, "TPU_CONFIG: \"%s\" must be a string",
                             keys[i]);
        else if (cres__json_strdup(&d, v[i], slot[i]) == 0)
            res = cres__oom(err, "tpu");
    }
    cres__json_free(&d);
    if (res == CRES_OK && !t->name)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "TPU_CONFIG: \"tpu_node_name\" is missing");
    if (res == CRES_OK && ((t->gcp.project && !cres__resource_name_ok(t->gcp.project)) ||
                           (t->gcp.zone && !cres__resource_name_ok(t->gcp.zone))))
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "TPU_CONFIG: \"project\" or \"zone\" is not a resource name");
    return res;
}

CRES__PRIVATE cres_result cres__tpu_multislice(const cres_tpu_options *o, int slices,
                                               cres_resolver **out, cres_error *err);

/* MEGASCALE_NUM_SLICES (1 when unset). A slice id or coordinator without it is a multislice
   job's environment missing its count, and one slice has only slice 0. */
CRES__PRIVATE cres_result cres__tpu_slices(const cres_resolver *r, int *slices, cres_error *err) {
    const char *set = cres__env_any(r, "MEGASCALE_SLICE_ID\0MEGASCALE_COORDINATOR_ADDRESS\0");
    int id = -1;
    cres_result res;
    *slices = -1;
    res = cres__env_int(r, "MEGASCALE_NUM_SLICES", 1, INT_MAX, slices, err);
    if (res == CRES_OK && *slices < 0 && set)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "tpu: %s is set but MEGASCALE_NUM_SLICES is not: a multislice job's "
                          "variables are missing",
                          set);
    if (*slices < 0) *slices = 1;
    if (res == CRES_OK && *slices == 1)
        res = cres__env_int(r, "MEGASCALE_SLICE_ID", 0, 0, &id, err);
    return res;
}

CRES_API cres_result cres_tpu_resolver_create(const cres_tpu_options *o, cres_resolver **out,
                                              cres_error *err) {
    cres_tpu_options none;
    cres_resolver *r;
    cres__tpu *t;
    const cres_allocator *a;
    const char *worker;
    long long id = 0;
    int slices = 1;
    cres_result res;
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "tpu: out is NULL");
    *out = NULL;
    if (o->api_version && strcmp(o->api_version, "v1") != 0 && strcmp(o->api_version, "v2") != 0)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "tpu: api_version must be \"v1\" or \"v2\"");
    if ((o->project && !cres__resource_name_ok(o->project)) ||
        (o->zone && !cres__resource_name_ok(o->zone)) || o->accelerators_per_host < 0 ||
        (o->coordinator_name && !o->coordinator_address) ||
        (o->tpu_url && !cres__base_url_ok(o->tpu_url)))
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "tpu: project or zone malformed, accelerators_per_host negative, a "
                          "coordinator without an address, or tpu_url not http:// or https:// "
                          "and a host");
    if ((res = cres_resolver_new(sizeof *t, &cres__tpu_vtable, o->config, &r, err)) != CRES_OK)
        return res;
    t = (cres__tpu *)r;
    a = &r->config.allocator;
    t->allow_unhealthy = o->allow_unhealthy;
    t->per_host = o->accelerators_per_host;
    res = cres__gcp_init(r, &t->gcp, o->project, o->zone, o->metadata_url, o->token, o->token_file,
                         o->credentials_file, o->ca_file, err);
    if (res == CRES_OK) res = cres__tpu_name(t, o, err);
    if (res == CRES_OK && strcmp(t->name, "local") != 0 && strncmp(t->name, "grpc://", 7) != 0 &&
        !strchr(t->name, ':') && !cres__resource_name_ok(t->name))
        res = cres__fail(err, t->name_fault, "tpu: %s: the TPU name is not a resource name",
                         t->name_from);
    if (res == CRES_OK &&
        !(cres__url_copy(a, &t->api, o->tpu_url ? o->tpu_url : "https://tpu.googleapis.com") &&
          cres__opt_copy(a, &t->version, o->api_version ? o->api_version : "v2") &&
          cres__opt_copy(a, &t->job, o->job_name ? o->job_name : "worker") &&
          cres__opt_copy(a, &t->coordinator_name, o->coordinator_name) &&
          cres__opt_copy(a, &t->coordinator_address, o->coordinator_address)))
        res = cres__oom(err, "tpu");
    if (res == CRES_OK) res = cres__check_job_name(t->job, err);
    if (res == CRES_OK && strcmp(t->name, "local") == 0 &&
        (res = cres__tpu_slices(r, &slices, err)) == CRES_OK &&
        slices > 1) { /* several slices: coordinator-only */
        cres_resolver_free(r);
        return cres__tpu_multislice(o, slices, out, err);
    }
    worker = cres_resolver_getenv(r, "TPU_WORKER_ID"); /* TF: worker 0 unless told; "" = unset */
    if (res == CRES_OK && worker && *worker &&
        (cres__parse_decimal(worker, strlen(worker), &id) != 1 || id < 0 || id > INT_MAX))
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "tpu: TPU_WORKER_ID must be a worker index");
    if (res == CRES_OK) res = cres_set_detected_task(r, t->job, (int)id, err);
    if (res == CRES_OK) res = cres_set_rpc_layer(r, "grpc", err);
    if (res == CRES_OK) res = cres__apply_options(r, o->task_type, o->task_id, o->rpc_layer, err);
    return cres__created(r, res, out);
}
#else
CRES__LEFT_OUT(cres_tpu_resolver_create, cres_tpu_options, "tpu", "CLUSTER_RESOLVER_NO_TPU")
#endif /* CLUSTER_RESOLVER_NO_TPU */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Slurm hostlists and tasks-per-node                                             >>hostlist */

#ifndef CRES_MAX_HOSTLIST_HOSTS
#  define CRES_MAX_HOSTLIST_HOSTS 1000000 /* a hostlist bomb stops here, before expanding */
#endif
#define CRES__MAX_HOST_GROUPS 16         /* bracket groups in one name */

/* One name of a hostlist: text, then up to 16 "[ranges]" groups each followed by text. */
typedef struct cres__host_pattern {
    const char *start, *end;                          /* the whole name */
    const char *group[CRES__MAX_HOST_GROUPS];         /* just past each '[' */
    const char *group_end[CRES__MAX_HOST_GROUPS];     /* at each ']' */
    size_t groups;
} cres__host_pattern;

/* Reads the number at *p (at most 18 digits, so it cannot overflow); its width in *width.
   0 when there is none or it is longer. Reads the tasks-per-node counts. */
CRES__PRIVATE int cres__host_number(const char **p, const char *end, long long *value, int *width) {
    const char *s = *p;
    *value = 0;
    while (s < end && *s >= '0' && *s <= '9' && s - *p < 18) *value = *value * 10 + (*s++ - '0');
    *width = (int)(s - *p);
    if (*width == 0 || (s < end && *s >= '0' && *s <= '9')) return 0;
    *p = s;
    return 1;
}

/* Reads the bound of a range at *p: digits, any number of them zeros in front, of a value
   below 2^64 - 1 (Slurm keeps 2^64 - 1 for "none": a range ending there gives one host, and
   it turns larger numbers into 2^64 - 1). Its digit count, the zero padding, in *width. */
CRES__PRIVATE int cres__host_bound(const char **p, const char *end, unsigned long long *value,
                                   size_t *width) {
    const char *s = *p;
    unsigned long long v = 0;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (ULLONG_MAX - 1 - d) / 10) return 0; /* v * 10 + d would pass 2^64 - 2 */
        v = v * 10 + d;
    }
    if (s == *p) return 0;
    *value = v;
    *width = (size_t)(s - *p);
    *p = s;
    return 1;
}

typedef struct cres__range {
    unsigned long long lo, hi;
    size_t width; /* digits of the lower bound as written: its zero padding */
} cres__range;

/* Reads the range at *p ("a" or "a-b") and the ',' after it; 0 when malformed (why says). */
CRES__PRIVATE int cres__next_range(const char **p, const char *end, cres__range *r,
                                   const char **why) {
    const char *s = *p;
    size_t ignored;
    *why = "a range is N or N-M, numbers of digits only, below 18446744073709551615";
    if (!cres__host_bound(&s, end, &r->lo, &r->width)) return 0;
    r->hi = r->lo;
    if (s < end && *s == '-' && (++s, !cres__host_bound(&s, end, &r->hi, &ignored))) return 0;
    if (r->hi < r->lo) {
        *why = "a range runs backwards";
        return 0;
    }
    if (s < end && *s++ != ',') {
        *why = "expected ',' or ']' after a range";
        return 0;
    }
    if (s == end && s[-1] == ',') {
        *why = "an empty range";
        return 0;
    }
    *p = s;
    return 1;
}

/* Hosts one group [p, end) stands for (stops counting past the limit); 0 when malformed. */
CRES__PRIVATE unsigned long long cres__group_size(const char *p, const char *end,
                                                  const char **why) {
    const unsigned long long over = (unsigned long long)CRES_MAX_HOSTLIST_HOSTS + 1;
    unsigned long long total = 0;
    cres__range r;
    *why = "empty brackets";
    if (p == end) return 0;
    while (p < end && total < over) {
        if (!cres__next_range(&p, end, &r, why)) return 0;
        total = r.hi - r.lo >= over ? over : total + (r.hi - r.lo) + 1; /* no wrap past 2^64 */
    }
    return total;
}

/* Splits the next name off *p (names end at ',' or white space outside brackets). */
CRES__PRIVATE int cres__host_pattern_next(const char **p, cres__host_pattern *hp,
                                          const char **why) {
    const char *s = *p;
    while (*s == ',' || *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (!*s) return 0;
    hp->start = s;
    hp->groups = 0;
    *why = NULL;
    for (; *s && *s != ',' && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r'; s++) {
        if (*s == ']') {
            *why = "a ']' without '['";
            break;
        }
        if (*s != '[') continue;
        if (hp->groups == CRES__MAX_HOST_GROUPS) {
            *why = "more than 16 bracket groups in one name";
            break;
        }
        hp->group[hp->groups] = ++s;
        while (*s && *s != ']' && *s != '[') s++;
        if (*s != ']') {
            *why = *s == '[' ? "a bracket inside a bracket" : "missing ']'";
            break;
        }
        hp->group_end[hp->groups++] = s;
    }
    hp->end = s;
    *p = s;
    return 1;
}

/* Writes v in decimal, zeros in front up to width digits. */
CRES__PRIVATE void cres__put_padded(cres__writer *w, unsigned long long v, size_t width) {
    char digits[24];
    size_t n = sizeof digits, len, pad;
    do digits[--n] = (char)('0' + (int)(v % 10));
    while ((v /= 10) != 0);
    len = sizeof digits - n;
    for (pad = width > len ? width - len : 0; pad > 0;) {
        size_t z = pad < 16 ? pad : 16;
        cres__put(w, "0000000000000000", z);
        pad -= z;
    }
    cres__put(w, digits + n, len);
}

/* Writes every host of a checked pattern in Slurm's order: an odometer over the groups whose
   fastest wheel is the last group, then the first, the second, ..., the one before the last
   the slowest (a[1-2]b[1-2]c[1-2]: a1b1c1 a1b1c2 a2b1c1 a2b1c2 a1b2c1 ...; for one or two
   groups simply the last fastest). Each step is O(1), so a group of a million single
   numbers stays linear. */
CRES__PRIVATE void cres__host_write_all(cres__writer *w, const cres__host_pattern *hp) {
    struct {
        const char *next; /* the range after the current one */
        cres__range r;
        unsigned long long v;
    } at[CRES__MAX_HOST_GROUPS];
    const char *why;
    size_t g, i;
    for (g = 0; g < hp->groups; g++) {
        at[g].next = hp->group[g];
        cres__next_range(&at[g].next, hp->group_end[g], &at[g].r, &why);
        at[g].v = at[g].r.lo;
    }
    for (;;) {
        const char *text = hp->start;
        for (g = 0; g < hp->groups; g++) {
            cres__put(w, text, (size_t)(hp->group[g] - 1 - text));
            cres__put_padded(w, at[g].v, at[g].r.width);
            text = hp->group_end[g] + 1;
        }
        cres__put(w, text, (size_t)(hp->end - text));
        cres__put_char(w, '\n');
        for (i = 0; i < hp->groups; i++) { /* advance, carrying into the next wheel */
            g = i == 0 ? hp->groups - 1 : i - 1;
            if (at[g].v < at[g].r.hi) {
                at[g].v++;
                break;
            }
            if (at[g].next < hp->group_end[g]) {
                cres__next_range(&at[g].next, hp->group_end[g], &at[g].r, &why);
                at[g].v = at[g].r.lo;
                break;
            }
            at[g].next = hp->group[g]; /* wrapped: back to its first range */
            cres__next_range(&at[g].next, hp->group_end[g], &at[g].r, &why);
            at[g].v = at[g].r.lo;
        }
        if (i == hp->groups) return; /* every wheel wrapped (or there are none) */
    }
}

CRES_API cres_result cres_hostlist_expand(const char *hostlist, char *buf, size_t cap,
                                          size_t *out_len, size_t *out_count, cres_error *err) {
    cres__writer w;
    cres__host_pattern hp;
    unsigned long long total = 0, sizes[CRES__MAX_HOST_GROUPS];
    const char *p = hostlist, *why = NULL;
    char q[CRES__QUOTE_SIZE];
    cres_result res;
    size_t g;
    int pass;
    cres__clear(err);
    if (out_count) *out_count = 0;
    if (!hostlist) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "hostlist is NULL");
    if ((res = cres__start(&w, buf, cap, err)) != CRES_OK) return res;
    cres__quote_str(q, sizeof q, hostlist);
    for (pass = 0; pass < 2; pass++) { /* check and count everything, then write */
        for (p = hostlist; cres__host_pattern_next(&p, &hp, &why);) {
            unsigned long long n = 1;
            if (why) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "hostlist %s: %s", q, why);
            for (g = 0; g < hp.groups; g++) {
                sizes[g] = cres__group_size(hp.group[g], hp.group_end[g], &why);
                if (!sizes[g])
                    return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "hostlist %s: %s", q, why);
                if (sizes[g] > (unsigned long long)CRES_MAX_HOSTLIST_HOSTS ||
                    n * sizes[g] > (unsigned long long)CRES_MAX_HOSTLIST_HOSTS)
                    n = (unsigned long long)CRES_MAX_HOSTLIST_HOSTS + 1;
                else n *= sizes[g];
            }
            if (pass == 0) {
                total += n;
                if (total > (unsigned long long)CRES_MAX_HOSTLIST_HOSTS)
                    return cres__fail(err, CRES_ERR_LIMIT, "hostlist %s: more than %d hosts", q,
                                      CRES_MAX_HOSTLIST_HOSTS);
            } else {
                cres__host_write_all(&w, &hp);
            }
        }
    }
    if (out_count) *out_count = (size_t)total;
    return cres__finish(&w, out_len, err);
}

CRES_API cres_result cres_tasks_per_node_expand(const char *text, int *counts, size_t cap,
                                                size_t *out_count, cres_error *err) {
    const char *p = text, *end, *why = NULL;
    char q[CRES__QUOTE_SIZE];
    size_t n = 0;
    cres__clear(err);
    if (out_count) *out_count = 0;
    if (!text) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "tasks-per-node is NULL");
    end = text + strlen(text);
    if (!counts && cap)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "counts is NULL but cap is %zu", cap);
    cres__quote_str(q, sizeof q, text);
    while (*p) { /* a problem breaks out, `why` saying what it is */
        long long count, times = 1;
        int width;
        while (*p == ' ' || *p == '\t') p++;
        if (!cres__host_number(&p, end, &count, &width) || count > 1000000) {
            why = "expected a count of 0 to 1000000";
            break;
        }
        if (strncmp(p, "(x", 2) == 0) {
            p += 2;
            if (!cres__host_number(&p, end, &times, &width) || *p != ')' || times < 1 ||
                times > 1000000) {
                why = "expected N(xM) with M from 1 to 1000000";
                break;
            }
            p++;
        }
        while (*p == ' ' || *p == '\t') p++;
        if (*p && *p != ',') {
            why = "expected ',' between counts";
            break;
        }
        if (*p == ',' && !*++p) {
            why = "ends with ','";
            break;
        }
        if ((unsigned long long)n + (unsigned long long)times >
            (unsigned long long)CRES_MAX_HOSTLIST_HOSTS)
            return cres__fail(err, CRES_ERR_LIMIT, "tasks-per-node %s: more than %d nodes", q,
                              CRES_MAX_HOSTLIST_HOSTS);
        for (; times > 0; times--, n++)
            if (n < cap) counts[n] = (int)count;
    }
    if (!why && n == 0) why = "no counts";
    if (why) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "tasks-per-node %s: %s", q, why);
    if (out_count) *out_count = n;
    if (counts && n > cap)
        return cres__fail(err, CRES_ERR_BUFFER_TOO_SMALL,
                          "tasks-per-node: %zu counts, the array has %zu", n, cap);
    return CRES_OK;
}

/* ////////////////////////////////////////////////////////////////////////////////////////
   HPC launchers: where the ranks run (shared by Slurm, MPI and SageMaker)            >>hpc */

#ifdef CRES__HPC
/* How a launcher deals ranks to nodes. Slurm names these in SLURM_DISTRIBUTION. */
typedef enum cres__deal { CRES__DEAL_BLOCK, CRES__DEAL_CYCLIC, CRES__DEAL_PLANE } cres__deal;

/* Nodes in launcher order with their task counts, and the own rank. */
typedef struct cres__layout {
    char *names;         /* the hosts' text, one per line (owned) */
    const char **hosts;  /* per node, into names (owned array) */
    int *tasks;          /* per node (owned) */
    size_t nodes;
    int ntasks;          /* sum of tasks */
    int rank;            /* own global rank */
    cres__deal deal;
    int plane;           /* tasks per node and round for CRES__DEAL_PLANE */
    int own_node;        /* what the launcher says of the own rank, -1 = not said: */
    int own_local;       /*   its node, its index there, its node's task count */
    int own_local_size;
    const char *from;    /* the hosts' source ("PBS_NODEFILE"), for messages */
    const char *said_by[2]; /* the variables that said own_*, for messages */
    const char *node_ranks; /* $SLURM_GTIDS: the own node's ranks, ascending; NULL = unsaid */
    const char *no_task;    /* why there is no own task ("no rank variable (...)"), or NULL */
} cres__layout;

CRES__PRIVATE void cres__layout_free(const cres_allocator *a, cres__layout *l) {
    cres__free(a, l->names);
    cres__free(a, (void *)l->hosts);
    cres__free(a, l->tasks);
    memset(l, 0, sizeof *l);
}

/* Allocates room for n nodes (names are filled by the caller). */
CRES__PRIVATE cres_result cres__layout_reserve(const cres_allocator *a, cres__layout *l, size_t n,
                                              const char *who, cres_error *err) {
    l->hosts = (const char **)cres__alloc(a, (n ? n : 1) * sizeof *l->hosts);
    l->tasks = (int *)cres__alloc(a, (n ? n : 1) * sizeof *l->tasks);
    if (!l->hosts || !l->tasks) return cres__oom(err, who);
    memset(l->tasks, 0, (n ? n : 1) * sizeof *l->tasks);
    l->nodes = n;
    return CRES_OK;
}

/* Splits text of "name\n" lines (owned by l->names) into l->hosts. */
CRES__PRIVATE void cres__layout_split_names(cres__layout *l) {
    char *p = l->names;
    size_t i;
    for (i = 0; i < l->nodes; i++) {
        char *nl = strchr(p, '\n');
        l->hosts[i] = p;
        *nl = '\0';
        p = nl + 1;
    }
}

/* Expands a Slurm hostlist into l's nodes. */
CRES__PRIVATE cres_result cres__layout_hostlist(const cres_allocator *a, cres__layout *l,
                                                const char *list, const char *who,
                                                cres_error *err) {
    size_t len, count;
    cres_result res = cres_hostlist_expand(list, NULL, 0, &len, &count, err);
    if (res != CRES_OK) return res;
    if (count == 0) return cres__fail(err, CRES_ERR_ENVIRONMENT, "names no host");
    if (!(l->names = (char *)cres__alloc(a, len + 1))) return cres__oom(err, who);
    cres_hostlist_expand(list, l->names, len + 1, NULL, NULL, NULL);
    if ((res = cres__layout_reserve(a, l, count, who, err)) != CRES_OK) return res;
    cres__layout_split_names(l);
    return CRES_OK;
}

typedef struct cres__name_at {
    const char *name;
    size_t at;
} cres__name_at;

CRES__PRIVATE int cres__cmp_name_at(const void *x, const void *y) {
    const cres__name_at *a = (const cres__name_at *)x, *b = (const cres__name_at *)y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->at < b->at ? -1 : a->at > b->at);
}

/* A node listed twice in a Slurm node list (l->from) would give two tasks one port: refuse
   it. */
CRES__PRIVATE cres_result cres__layout_unique(const cres_allocator *a, const cres__layout *l,
                                              const char *who, cres_error *err) {
    cres__name_at *v;
    size_t i;
    cres_result res = CRES_OK;
    if (l->nodes < 2) return CRES_OK;
    if (!(v = (cres__name_at *)cres__alloc(a, l->nodes * sizeof *v))) return cres__oom(err, who);
    for (i = 0; i < l->nodes; i++) {
        v[i].name = l->hosts[i];
        v[i].at = i;
    }
    qsort(v, l->nodes, sizeof *v, cres__cmp_name_at);
    for (i = 1; i < l->nodes && res == CRES_OK; i++) {
        if (strcmp(v[i - 1].name, v[i].name) == 0) {
            char q[CRES__QUOTE_SIZE];
            res = cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s lists node %s twice", who, l->from,
                             cres__quote_str(q, sizeof q, v[i].name));
        }
    }
    cres__free(a, v);
    return res;
}

/* Sums the task counts; more than CRES_MAX_HOSTLIST_HOSTS tasks is CRES_ERR_LIMIT. */
CRES__PRIVATE cres_result cres__layout_total(cres__layout *l, const char *who, cres_error *err) {
    size_t i;
    long long total = 0;
    for (i = 0; i < l->nodes; i++) {
        total += l->tasks[i];
        if (total > CRES_MAX_HOSTLIST_HOSTS)
            return cres__fail(err, CRES_ERR_LIMIT, "%s: more than %d tasks", who,
                              CRES_MAX_HOSTLIST_HOSTS);
    }
    l->ntasks = (int)total;
    return CRES_OK;
}

/* Deals the ranks: node[r] and local[r] (the rank's index among its node's tasks). The deal
   goes in rounds over the nodes that still have tasks, so the work is linear: step tasks of
   each per round, a plane's size (plane), 1 (cyclic), or all of them in the first (block). */
CRES__PRIVATE cres_result cres__layout_deal(const cres_allocator *a, const cres__layout *l,
                                            int *node, int *local, const char *who,
                                            cres_error *err) {
    size_t i, live, kept;
    size_t *open;
    int r = 0, round = 0;
    int step = l->deal == CRES__DEAL_PLANE ? l->plane : l->deal == CRES__DEAL_CYCLIC ? 1 : INT_MAX;
    if (!(open = (size_t *)cres__alloc(a, l->nodes * sizeof *open))) /* 0: cres__alloc gives 1 */
        return cres__oom(err, who);
    for (i = live = 0; i < l->nodes; i++)
        if (l->tasks[i] > 0) open[live++] = i;
    for (; live; round += step) {
        for (i = kept = 0; i < live; i++) {
            size_t n = open[i];
            int k;
            for (k = round; k < round + step && k < l->tasks[n]; k++, r++) {
                node[r] = (int)n;
                local[r] = k;
            }
            if (l->tasks[n] > round + step) open[kept++] = n;
        }
        live = kept;
    }
    cres__free(a, open);
    return CRES_OK;
}

/* The launcher's word on the own rank must match the deal: a distribution we do not know,
   or a hostfile that is not mpirun's, shows here instead of giving wrong addresses. */
CRES__PRIVATE cres_result cres__layout_check(const cres__layout *l, const int *node,
                                             const int *local, const char *who, cres_error *err) {
    int r = l->rank, n;
    if (r < 0) return CRES_OK; /* a job script: no own rank */
    n = node[r];
    if ((l->own_node < 0 || l->own_node == n) && (l->own_local < 0 || l->own_local == local[r]) &&
        (l->own_local_size < 0 || l->own_local_size == l->tasks[n]))
        return CRES_OK;
    /* what the launcher says, each with its word: " task 1 of 4 on node 2" */
    CRES__BYTE_ALIGNED static const char words[] = "task\0of\0on node\0";
    const char *word = words;
    int says[3], i;
    char said[256];
    size_t k = 0;
    said[0] = '\0';
    says[0] = l->own_local;
    says[1] = l->own_local_size;
    says[2] = l->own_node;
    for (i = 0; i < 3; i++, word = cres__next_name(word))
        if (says[i] >= 0) k += (size_t)snprintf(said + k, sizeof said - k, " %s %d", word, says[i]);
    if (l->said_by[0] || l->said_by[1])
        snprintf(said + k, sizeof said - k, " (%s%s%s)", l->said_by[0] ? l->said_by[0] : "",
                 l->said_by[0] && l->said_by[1] ? ", " : "", l->said_by[1] ? l->said_by[1] : "");
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "%s: rank %d should be task %d of %d on node %d (%.64s), but the launcher "
                      "says%s",
                      who, r, local[r], l->tasks[n], n, l->hosts[n], said);
}

/* srun names every rank of the own node (SLURM_GTIDS, ascending): the deal must put exactly
   those there, which shows a distribution we do not know even where the own rank's place
   (rank 0's, say) happens to agree. */
CRES__PRIVATE cres_result cres__layout_node_ranks(const cres__layout *l, const int *node,
                                                  const char *who, cres_error *err) {
    const char *p = l->node_ranks;
    long long x, last = -1;
    int own, count = 0;
    char q[CRES__QUOTE_SIZE];
    if (!p || l->rank < 0) return CRES_OK;
    own = node[l->rank];
    cres__quote_str(q, sizeof q, p); /* for the messages */
    for (;;) {
        size_t n = strcspn(p, ",");
        if (cres__parse_decimal(p, n, &x) != 1 || x <= last || x >= l->ntasks)
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "%s: SLURM_GTIDS=%s is not ascending task ids below %d", who, q,
                              l->ntasks);
        if (node[x] != own)
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "%s: SLURM_GTIDS=%s lists rank %lld, which the placement puts on "
                              "node %d, not on this node %d",
                              who, q, x, node[x], own);
        last = x;
        count++;
        if (!p[n]) break;
        p += n + 1;
    }
    if (count == l->tasks[own]) return CRES_OK;
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "%s: SLURM_GTIDS=%s lists %d ranks on this node, the placement %d", who, q,
                      count, l->tasks[own]);
}

/* The jobs that split the ranks, in rank order: "chief" first, then by name. */
typedef struct cres__job_split {
    const char *job;
    int count;
    int first; /* its first rank */
    int place; /* "chief" 0, "evaluator" 2 (last, as >>launch orders it), the others 1 */
} cres__job_split;

CRES__PRIVATE int cres__cmp_job_split(const void *x, const void *y) {
    const cres__job_split *a = (const cres__job_split *)x, *b = (const cres__job_split *)y;
    return a->place != b->place ? a->place - b->place : strcmp(a->job, b->job);
}

/* What a launcher says of the device lists its tasks see (section 7, slurm's GPUs). */
typedef struct cres__gpu_word {
    int on_node;             /* the node's GPUs for this job or step, -1 = unsaid */
    const char *on_node_var; /* the variable that says it ("SLURM_GPUS_ON_NODE") */
    char bound[200];         /* why the lists are this task's own already, "" = unsaid */
    const char *unsaid;      /* why nothing is said, for the log; NULL = the launcher does not */
} cres__gpu_word;

/* A backend's reader of that word; NULL: its launcher says nothing of GPUs. */
typedef cres_result (*cres__gpu_reader)(const cres_resolver *r, cres__gpu_word *said,
                                        cres_error *err);

/* The state both backends keep: the spec made at create (base and spec first, as in
   cres__simple), and per rank the local index (for GPU assignment) and the device list the
   GPUs come from. */
typedef struct cres__hpc {
    cres_resolver base;
    cres_cluster_spec *spec;
    cres__job_split *jobs;
    size_t jobs_count;
    int *local;          /* per rank */
    int ntasks;
    int gpus_per_task; /* every task's: the caller's, or a list's kept as it is */
    int node_gpus;     /* a node's GPUs, when they are split among its tasks */
    int *gpus;         /* per rank, when split: gpus_per_task, else its node's share */
    char *devices;     /* the node's ids, comma-separated ("" = 0..n-1); NULL = kept as is */
} cres__hpc;

/* A backend's reader of where its ranks run; `options` is its own options struct. */
typedef cres_result (*cres__layout_reader)(const cres_resolver *r, const void *options,
                                           cres__layout *l, cres_error *err);

/* The options every HPC backend has, and its launcher's word on GPUs. */
typedef struct cres__hpc_want {
    const cres_job_count *jobs;
    size_t jobs_count;
    int port_base;
    int gpus_per_node;
    int gpus_per_task;
    cres__gpu_reader gpu_reader;
    cres__layout_reader layout_reader; /* here: a 7th argument would go on the stack */
    const char *task_type;
    int task_id;
    const char *rpc_layer;
} cres__hpc_want;

/* Checks the requested jobs and orders them; NULL jobs = one "worker" job of every task. */
CRES__PRIVATE cres_result cres__hpc_jobs(cres__hpc *h, const cres__hpc_want *w, int ntasks,
                                         cres_error *err) {
    const char *who = h->base.vtable->name;
    const cres_allocator *a = &h->base.config.allocator;
    size_t i, n = w->jobs ? w->jobs_count : 1;
    long long sum = 0;
    int first = 0;
    if (!w->jobs != !w->jobs_count)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "%s: options.jobs and options.jobs_count: set both, or neither", who);
    if (n > 1024) return cres__fail(err, CRES_ERR_LIMIT, "%s: more than 1024 jobs", who);
    if (!(h->jobs = (cres__job_split *)cres__alloc(a, n * sizeof *h->jobs)))
        return cres__oom(err, who);
    h->jobs_count = n;
    for (i = 0; i < n; i++) {
        h->jobs[i].job = w->jobs ? w->jobs[i].job : "worker";
        h->jobs[i].count = w->jobs ? w->jobs[i].count : ntasks;
        if (!h->jobs[i].job || h->jobs[i].count < 0)
            return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                              "%s: job %zu needs a name and a count of 0 or more", who, i);
        h->jobs[i].place = strcmp(h->jobs[i].job, "chief") == 0       ? 0
                           : strcmp(h->jobs[i].job, "evaluator") == 0 ? 2
                                                                      : 1;
        sum += h->jobs[i].count;
    }
    if (sum != ntasks) /* before the ranks are counted out, so that they cannot overflow */
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: options.jobs ask for %lld tasks but the launcher started %d", who,
                          sum, ntasks);
    qsort(h->jobs, n, sizeof *h->jobs, cres__cmp_job_split);
    for (i = 0; i < n; i++) {
        char q[CRES__QUOTE_SIZE];
        if (i && strcmp(h->jobs[i - 1].job, h->jobs[i].job) == 0)
            return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "%s: job %s is given twice", who,
                              cres__quote_str(q, sizeof q, h->jobs[i].job));
        h->jobs[i].first = first;
        first += h->jobs[i].count;
    }
    return CRES_OK;
}

/* The device lists a launcher may narrow to a task: CUDA's, then AMD ROCm's and HIP's, Intel
   Level Zero's and OpenCL's (Slurm writes one list into each that gres.conf's flags name); a
   name list (see "Footprint" in >>impl). */
CRES__BYTE_ALIGNED static const char cres__device_vars[] =
    "CUDA_VISIBLE_DEVICES\0ROCR_VISIBLE_DEVICES\0"
    "HIP_VISIBLE_DEVICES\0ZE_AFFINITY_MASK\0"
    "GPU_DEVICE_ORDINAL\0";

/* "CUDA_VISIBLE_DEVICES", the list's first name: a literal would be a second copy. */
#define CRES__CUDA_VAR cres__device_vars

/* The ids in $CUDA_VISIBLE_DEVICES: *list NULL and *count 0 when it says no GPU (unset,
   blank, "NoDevFiles" as Slurm writes, "-1" as users do). */
CRES__PRIVATE cres_result cres__cuda_devices(const cres_resolver *r, const char **list, int *count,
                                             cres_error *err) {
    const char *cuda = cres_resolver_getenv(r, CRES__CUDA_VAR), *p;
    *list = NULL;
    *count = 0;
    if (!cuda || cres__is_blank(cuda) || strcmp(cuda, "NoDevFiles") == 0 || strcmp(cuda, "-1") == 0)
        return CRES_OK;
    if (strlen(cuda) > 4096)
        return cres__fail(err, CRES_ERR_LIMIT, "%s: CUDA_VISIBLE_DEVICES is longer than 4096 bytes",
                          r->vtable->name);
    for (p = cuda; *p; p++) {
        char c = *p;
        int id_char = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      strchr("-_:./,", c);
        if (!id_char || (c == ',' && (p[1] == ',' || !p[1])) || (p == cuda && c == ','))
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "%s: CUDA_VISIBLE_DEVICES=\"%.64s\" is not a list of ids",
                              r->vtable->name, cuda);
        *count += *p == ',';
    }
    *list = cuda;
    ++*count;
    return CRES_OK;
}

/* The entries of a comma-separated list; 0 when unset or blank. */
CRES__PRIVATE int cres__list_count(const char *v) {
    int n = 1;
    if (!v || cres__is_blank(v)) return 0;
    for (; *v; v++) n += *v == ',';
    return n;
}

/* A list shorter than the node's GPUs (as the launcher counts them), or another device list
   shorter than CUDA's, was narrowed to this task: then CUDA's is not the node's either. */
CRES__PRIVATE void cres__gpu_lists_bound(const cres_resolver *r, int cuda_listed,
                                         cres__gpu_word *said) {
    const char *var;
    for (var = cres__device_vars; *var && !said->bound[0]; var = cres__next_name(var)) {
        int n =
            var != cres__device_vars ? cres__list_count(cres_resolver_getenv(r, var)) : cuda_listed;
        if (!n) continue;
        if (said->on_node > n)
            snprintf(said->bound, sizeof said->bound, "%s=%d but %s lists %d", said->on_node_var,
                     said->on_node, var, n);
        else if (cuda_listed > n)
            snprintf(said->bound, sizeof said->bound,
                     "%s lists %d devices, CUDA_VISIBLE_DEVICES %d", var, n, cuda_listed);
    }
}

/* The node's GPUs (per_node; ids from `cuda`, NULL: numbered from 0) split among its tasks:
   the caller's gpus_per_task each, checked against the node of the most tasks, else each
   node's share (cres__hpc_shares, once the ranks are placed). */
CRES__PRIVATE cres_result cres__hpc_split(cres__hpc *h, const cres__hpc_want *w, int per_node,
                                          const char *cuda, int max_tasks, cres_error *err) {
    const char *who = h->base.vtable->name;
    int g = w->gpus_per_task;
    if ((long long)g * max_tasks > per_node)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: options.gpus_per_task %d for the %d tasks of a node is %lld GPUs, "
                          "more than the %d of %s",
                          who, g, max_tasks, (long long)g * max_tasks, per_node,
                          w->gpus_per_node ? "options.gpus_per_node" : CRES__CUDA_VAR);
    h->gpus_per_task = g;
    h->node_gpus = per_node;
    if (!(h->devices = cres__strdup(&h->base.config.allocator, cuda ? cuda : "")))
        return cres__oom(err, who);
    return CRES_OK;
}

/* The launcher gave this task its own list already: passed on unchanged (visible devices ""),
   its length the task's count. The caller's own count must agree: gpus_per_node asks for a
   split of the node's list, which this task cannot see. q: the list, quoted. */
CRES__PRIVATE cres_result cres__hpc_bound(cres__hpc *h, const cres__hpc_want *w, const char *q,
                                          int listed, const char *why, cres_error *err) {
    const char *who = h->base.vtable->name;
    if (w->gpus_per_node > 0)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: options.gpus_per_node (--gpus-per-node) %d would split the node's "
                          "GPUs among its tasks, but the launcher gave each task its own (%s)",
                          who, w->gpus_per_node, why);
    if (w->gpus_per_task > 0 && w->gpus_per_task != listed)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: options.gpus_per_task (--gpus-per-task) %d, but the launcher gave "
                          "this task its own GPUs (%s) and CUDA_VISIBLE_DEVICES lists %d",
                          who, w->gpus_per_task, why, listed);
    if (listed)
        cres__log(&h->base, CRES_LOG_INFO,
                  "%s: CUDA_VISIBLE_DEVICES=%s is this task's own (%s): passed on unchanged", who,
                  q, why);
    h->gpus_per_task = listed;
    return CRES_OK;
}

/* GPUs per task and the ids they come from. A list is split among the node's tasks only when
   the caller says so (gpus_per_node, gpus_per_task) or the launcher says it is the node's;
   one the launcher bound to this task, or one nobody speaks for, is left as it is. */
CRES__PRIVATE cres_result cres__hpc_gpus(cres__hpc *h, const cres__hpc_want *w, int max_tasks,
                                         cres_error *err) {
    const char *who = h->base.vtable->name, *cuda = NULL;
    int per_node = w->gpus_per_node, listed = 0;
    cres__gpu_word said;
    char q[CRES__QUOTE_SIZE];
    cres_result res;
    if (per_node < CRES_NO_GPUS || per_node > 4096 || w->gpus_per_task < 0 ||
        w->gpus_per_task > 4096)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "%s: gpus_per_node %d / gpus_per_task %d: not 0 to 4096", who, per_node,
                          w->gpus_per_task);
    if (per_node == CRES_NO_GPUS) {
        if (!w->gpus_per_task) return CRES_OK;
        per_node = 0; /* no GPUs: the caller's gpus_per_task is checked against none */
        goto split;
    }
    if ((res = cres__cuda_devices(&h->base, &cuda, &listed, err)) != CRES_OK) return res;
    if (listed) cres__quote_str(q, sizeof q, cuda); /* for the messages that name it */
    memset(&said, 0, sizeof said);
    said.on_node = -1;
    if (w->gpu_reader && (res = w->gpu_reader(&h->base, &said, err)) != CRES_OK) return res;
    cres__gpu_lists_bound(&h->base, listed, &said);
    if (said.bound[0]) return cres__hpc_bound(h, w, q, listed, said.bound, err);
    if (per_node > 0 && said.on_node >= 0 && said.on_node != per_node)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: options.gpus_per_node (--gpus-per-node) %d, but %s=%d", who,
                          per_node, said.on_node_var, said.on_node);
    if (listed && listed < per_node) /* longer: its first per_node ids are the node's */
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: options.gpus_per_node %d, but CUDA_VISIBLE_DEVICES=%s lists %d", who,
                          per_node, q, listed);
    if (per_node > 0 || w->gpus_per_task > 0 || (listed && said.on_node == listed)) goto split;
    if (listed && said.on_node >= 0)
        cres__log(&h->base, CRES_LOG_INFO,
                  "%s: CUDA_VISIBLE_DEVICES=%s left as it is: it lists %d devices, %s=%d", who,
                  q, listed, said.on_node_var, said.on_node);
    else if (listed)
        cres__log(&h->base, CRES_LOG_INFO,
                  "%s: CUDA_VISIBLE_DEVICES=%s left as it is: %s whether it lists the node's "
                  "GPUs or this task's own (options.gpus_per_node or gpus_per_task, "
                  "--gpus-per-node or --gpus-per-task, would split it as the node's)",
                  who, q, said.unsaid ? said.unsaid : "the launcher does not say");
    h->gpus_per_task = listed;
    return CRES_OK;
split:
    return cres__hpc_split(h, w, per_node ? per_node : listed, listed ? cuda : NULL, max_tasks,
                           err);
}

/* Each rank's GPUs, once placed: the caller's count, else its node's share (a node of more
   tasks than GPUs gives none: its tasks keep the list). config.log says the own task's. */
CRES__PRIVATE cres_result cres__hpc_shares(cres__hpc *h, const cres__layout *l, const int *node,
                                           cres_error *err) {
    int r, g;
    if (!h->devices) return CRES_OK;
    h->gpus = (int *)cres__alloc(&h->base.config.allocator,
                                 (size_t)(l->ntasks ? l->ntasks : 1) * sizeof *h->gpus);
    if (!h->gpus) return cres__oom(err, h->base.vtable->name);
    for (r = 0; r < l->ntasks; r++)
        h->gpus[r] = h->gpus_per_task ? h->gpus_per_task : h->node_gpus / l->tasks[node[r]];
    if (l->rank < 0) return CRES_OK;
    g = h->gpus[l->rank];
    cres__log(&h->base, CRES_LOG_INFO, "%s: %s's %d GPUs (%s), %d per task%s", h->base.vtable->name,
              l->hosts[node[l->rank]], h->node_gpus,
              *h->devices ? CRES__CUDA_VAR : "numbered from 0", g,
              g ? "" : ": fewer than its tasks, each keeps the list");
    return CRES_OK;
}

/* Builds the spec (addresses host:port_base+local) and finds the own task. */
CRES__PRIVATE cres_result cres__hpc_build(cres__hpc *h, const cres__layout *l,
                                          const cres__hpc_want *w, cres_error *err) {
    const char *who = h->base.vtable->name;
    const cres_allocator *a = &h->base.config.allocator;
    int *node = NULL, max_tasks = 0, port_base = w->port_base ? w->port_base : 8888;
    size_t i;
    cres_result res;
    if (port_base < 1 || port_base > 65535)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "%s: port_base %d is not a port", who,
                          port_base);
    for (i = 0; i < l->nodes; i++)
        if (l->tasks[i] > max_tasks) max_tasks = l->tasks[i];
    if (port_base + max_tasks - 1 > 65535)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: options.port_base %d: %d tasks on one node need ports past 65535",
                          who, port_base, max_tasks);
    if ((res = cres__hpc_jobs(h, w, l->ntasks, err)) != CRES_OK) return res;
    if ((res = cres__hpc_gpus(h, w, max_tasks, err)) != CRES_OK) return res;
    h->ntasks = l->ntasks;
    node = (int *)cres__alloc(a, (l->ntasks ? (size_t)l->ntasks : 1) * sizeof *node);
    h->local = (int *)cres__alloc(a, (l->ntasks ? (size_t)l->ntasks : 1) * sizeof *h->local);
    if (!node || !h->local) res = cres__oom(err, who);
    if (res == CRES_OK) res = cres__layout_deal(a, l, node, h->local, who, err);
    if (res == CRES_OK) res = cres__layout_check(l, node, h->local, who, err);
    if (res == CRES_OK) res = cres__layout_node_ranks(l, node, who, err);
    if (res == CRES_OK) res = cres__hpc_shares(h, l, node, err);
    if (res == CRES_OK) res = cres_spec_create(a, &h->spec, err);
    for (i = 0; i < h->jobs_count && res == CRES_OK; i++) {
        const cres__job_split *j = &h->jobs[i];
        int k;
        if (j->count == 0) res = cres_spec_add_job(h->spec, j->job, NULL, 0, err);
        for (k = 0; k < j->count && res == CRES_OK; k++) {
            char address[CRES_MAX_NAME_LENGTH + 16], q[CRES__QUOTE_SIZE];
            int r = j->first + k;
            const char *host = l->hosts[node[r]];
            cres__writer aw;
            cres__start(&aw, address, sizeof address, NULL);
            if (!cres__put_host_port(&aw, host, port_base + h->local[r]) ||
                cres__finish(&aw, NULL, NULL) != CRES_OK)
                res = cres__fail(
                    err, CRES_ERR_ENVIRONMENT, "%s: %s is not a host name or IPv6 address (%s)",
                    who, cres__quote_str(q, sizeof q, host), l->from ? l->from : "the hostfile");
            else res = cres_spec_add_task(h->spec, j->job, k, address, err);
        }
        if (res == CRES_OK && l->rank >= j->first && l->rank < j->first + j->count)
            res = cres_set_detected_task(&h->base, j->job, l->rank - j->first, err);
        if (res == CRES_OK) /* the options' strings are borrowed */
            h->jobs[i].job = cres_spec_job(h->spec, j->job)->name;
    }
    cres__free(a, node);
    return res;
}

/* The spec made at create, copied: cres__simple's resolve, as the state starts as its does. */
#define cres__hpc_resolve cres__simple_resolve

/* The global rank of a task (NULL / -1 = own). */
CRES__PRIVATE cres_result cres__hpc_rank(cres__hpc *h, const char *task_type, int task_id,
                                         int *rank, cres_error *err) {
    const char *type = task_type ? task_type : h->base.task_type;
    int id = task_id >= 0 ? task_id : h->base.task_id;
    size_t i;
    char q[CRES__QUOTE_SIZE];
    if (!type || id < 0)
        return cres__fail(err, CRES_ERR_NOT_FOUND, "%s: no task given and the own task is unknown",
                          h->base.vtable->name);
    for (i = 0; i < h->jobs_count; i++) {
        if (strcmp(h->jobs[i].job, type) == 0 && id < h->jobs[i].count) {
            *rank = h->jobs[i].first + id;
            return CRES_OK;
        }
    }
    return cres__fail(err, CRES_ERR_NOT_FOUND, "%s: no task %s %d", h->base.vtable->name,
                      cres__quote_str(q, sizeof q, type), id);
}

CRES__PRIVATE cres_result cres__hpc_accelerators(cres_resolver *r, const char *task_type,
                                                 int task_id, cres_accelerators *out,
                                                 cres_error *err) {
    cres__hpc *h = (cres__hpc *)r;
    int rank = 0, g;
    cres_result res =
        task_type || h->gpus ? cres__hpc_rank(h, task_type, task_id, &rank, err) : CRES_OK;
    if (res != CRES_OK) return res;
    g = h->gpus ? h->gpus[rank] : h->gpus_per_task; /* kept: as many as the own list holds */
    if (g > 0) {
        strcpy(out->items[0].type, "GPU");
        out->items[0].count = g;
        out->count = 1;
    }
    return CRES_OK;
}

/* Task k of a node sees devices k*g .. k*g+g-1 of the node's list ("" when each task keeps
   the list it has). */
CRES__PRIVATE cres_result cres__hpc_devices(cres_resolver *r, const char *task_type, int task_id,
                                            char *buf, size_t cap, size_t *out_len,
                                            cres_error *err) {
    cres__hpc *h = (cres__hpc *)r;
    cres__writer w;
    cres_result res = cres__start(&w, buf, cap, err);
    int rank = 0, first, k, g;
    if (res != CRES_OK) return res;
    if (h->gpus_per_task > 0 || h->gpus) {
        if ((res = cres__hpc_rank(h, task_type, task_id, &rank, err)) != CRES_OK) return res;
        if (!h->devices) return cres__finish(&w, out_len, err);
        g = h->gpus[rank];
        first = h->local[rank] * g;
        for (k = first; k < first + g; k++) {
            if (k > first) cres__puts(&w, ",");
            if (!*h->devices) {
                cres__put_int(&w, k);
            } else {
                const char *p = h->devices;
                int skip = k;
                while (skip-- > 0) p = strchr(p, ',') + 1;
                cres__put(&w, p, strcspn(p, ","));
            }
        }
    }
    return cres__finish(&w, out_len, err);
}

CRES__PRIVATE void cres__hpc_destroy(cres_resolver *r) {
    cres__hpc *h = (cres__hpc *)r;
    cres_spec_free(h->spec);
    cres__free(&r->config.allocator, h->jobs);
    cres__free(&r->config.allocator, h->local);
    cres__free(&r->config.allocator, h->gpus);
    cres__free(&r->config.allocator, h->devices);
}

/* The create function every HPC backend shares: w->layout_reader places the ranks, the rest is
   the same for all (one function, not one copy per backend). */
CRES__PRIVATE cres_result cres__hpc_create(const cres_resolver_vtable *vtable,
                                           const cres_config *config, const cres__hpc_want *w,
                                           const void *options, cres_resolver **out,
                                           cres_error *err) {
    cres__layout l;
    cres_resolver *r;
    cres_result res;
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    memset(&l, 0, sizeof l);
    l.own_node = l.own_local = l.own_local_size = -1;
    if ((res = cres_resolver_new(sizeof(cres__hpc), vtable, config, &r, err)) != CRES_OK)
        return res;
    res = w->layout_reader(r, options, &l, err);
    if (res == CRES_OK) res = cres_set_rpc_layer(r, "grpc", err);
    if (res == CRES_OK) res = cres__hpc_build((cres__hpc *)r, &l, w, err);
    if (res == CRES_OK) res = cres__apply_options(r, w->task_type, w->task_id, w->rpc_layer, err);
    r->no_task_why = l.no_task;
    cres__layout_free(&r->config.allocator, &l);
    return cres__created(r, res, out);
}

/* The create function of an HPC backend (Slurm, MPI, the schedulers): the options they all
   share, then cres__hpc_create with layout, which reads the rest; reader says what the
   launcher says of the GPU lists (NULL: nothing). */
#define CRES__HPC_CREATE(fn, vtable, options_type, layout, reader)                         \
    CRES_API cres_result fn(const options_type *o, cres_resolver **out, cres_error *err) { \
        static options_type none; /* the defaults: see "Footprint" in >>impl */           \
        cres__hpc_want w;                                                                  \
        if (!o) o = &none;                                                                 \
        w.jobs = o->jobs;                                                                  \
        w.jobs_count = o->jobs_count;                                                      \
        w.port_base = o->port_base;                                                        \
        w.gpus_per_node = o->gpus_per_node;                                                \
        w.gpus_per_task = o->gpus_per_task;                                                \
        w.gpu_reader = reader;                                                             \
        w.layout_reader = layout;                                                          \
        w.task_type = o->task_type;                                                        \
        w.task_id = o->task_id;                                                            \
        w.rpc_layer = o->rpc_layer;                                                        \
        return cres__hpc_create(&vtable, o->config, &w, o, out, err);                      \
    }
#endif /* CRES__HPC */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Slurm: the tasks of the job step                                                >>slurm */

#if !defined(CLUSTER_RESOLVER_NO_SLURM) || \
    !defined(CLUSTER_RESOLVER_NO_MPI) /* MPI reads srun's steps too */
/* SLURM_DISTRIBUTION's first part says how ranks go to nodes ("cyclic:block" is cyclic).
   srun -m pack or nopack alone names only how many tasks a node takes (which
   SLURM_STEP_TASKS_PER_NODE says) and Slurm's default layout, block (src/common/proc_args.c
   set_distribution writes "pack"; slurm_step_layout.c lays the tasks out in blocks). */
CRES__PRIVATE cres_result cres__slurm_deal(const cres_resolver *r, cres__layout *l,
                                           cres_error *err) {
    /* the deals in cres__deal's order (a name list, see "Footprint" in >>impl) */
    CRES__BYTE_ALIGNED static const char deals[] = "block\0cyclic\0plane\0";
    const char *d = cres_resolver_getenv(r, "SLURM_DISTRIBUTION"), *name = deals;
    size_t n = d ? strcspn(d, ":,") : 0;
    int i;
    char q[CRES__QUOTE_SIZE];
    l->deal = CRES__DEAL_BLOCK;
    if (!d || strcmp(d, "pack") == 0 || strcmp(d, "nopack") == 0) return CRES_OK;
    for (i = 0; *name; name = cres__next_name(name), i++) {
        if (strlen(name) != n || memcmp(d, name, n) != 0) continue;
        l->deal = (cres__deal)i;
        if (i != CRES__DEAL_PLANE) return CRES_OK;
        return cres__env_need(r, "SLURM_DIST_PLANESIZE", 1, CRES_MAX_HOSTLIST_HOSTS, &l->plane,
                              err);
    }
    return cres__fail(err, CRES_ERR_UNSUPPORTED,
                      "%s: SLURM_DISTRIBUTION=%s is not supported (block, cyclic, plane)",
                      r->vtable->name, cres__quote_str(q, sizeof q, d));
}

/* Whether a --gpu-bind value gives a GPU binding type ("verbose,closest" does, "verbose"
   alone does not), or with `tres` the gres/gpu part of a --tres-bind one
   ("gres/gpu:per_task:2+gres/nic:closest"). */
CRES__PRIVATE int cres__slurm_binds(const char *v, int tres) {
    const char *gpu = v && tres ? strstr(v, "gres/gpu:") : NULL;
    size_t n;
    if (tres) v = gpu ? gpu + 9 : NULL;
    if (!v) return 0;
    n = strcspn(v, "+");
    if (n >= 7 && strncmp(v, "verbose", 7) == 0) {
        n -= 7;
        if (n && v[7] == ',') n--;
    }
    return n > 0;
}

/* Slurm's word on the GPU lists a task sees. slurmstepd (src/plugins/gres/common/
   gres_common.c, gres_common_gpu_set_env) sets SLURM_GPUS_ON_NODE to the step's GPUs on the
   node and CUDA_VISIBLE_DEVICES (and ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK,
   GPU_DEVICE_ORDINAL, as gres.conf's flags say) to those the task may use: all of them, or
   its own when the step binds GPUs to tasks. srun(1) binds for --gpus-per-task (per_task)
   and --ntasks-per-gpu (single) unless --gpu-bind=none, and for any other --gpu-bind
   (--tres-bind=gres/gpu:TYPE). The tasks see those options in the job's SLURM_GPUS_PER_TASK,
   SLURM_NTASKS_PER_GPU, SLURM_GPU_BIND (sbatch, salloc) and from Slurm 23.11
   SLURM_TRES_PER_TASK ("gres/gpu=2") and SLURM_TRES_BIND ("gres/gpu:per_task:2", srun's
   too); srun 22.05 names its own only in SLURM_NTASKS_PER_TRES, so a list shorter than
   SLURM_GPUS_ON_NODE is the other sign. SLURM_STEP_GPUS is narrowed with the list and
   SLURM_JOB_GPUS is the batch node's: neither tells. */
CRES__PRIVATE cres_result cres__slurm_gpus(const cres_resolver *r, cres__gpu_word *said,
                                           cres_error *err) {
    CRES__BYTE_ALIGNED static const char implicit[] = "SLURM_GPUS_PER_TASK\0SLURM_NTASKS_PER_GPU\0"
                                                      "SLURM_NTASKS_PER_TRES\0";
    const char *bind_var, *bind, *hint;
    const char *per_task = cres_resolver_getenv(r, "SLURM_TRES_PER_TASK");
    int binds = 0, tres;
    char q[CRES__QUOTE_SIZE];
    cres_result res = cres__env_int(r, "SLURM_GPUS_ON_NODE", 0, 4096, &said->on_node, err);
    if (res != CRES_OK) return res;
    said->on_node_var = "SLURM_GPUS_ON_NODE";
    if (said->on_node < 0)
        said->unsaid = "SLURM_GPUS_ON_NODE (the step's GPUs on the node) is not set, so "
                       "nothing says";
    for (tres = 1; tres >= 0 && !binds; tres--) { /* --tres-bind's, else --gpu-bind's */
        bind_var = tres ? "SLURM_TRES_BIND" : "SLURM_GPU_BIND";
        binds = cres__slurm_binds(bind = cres_resolver_getenv(r, bind_var), tres);
    }
    /* bind_var, its value bind: the variable that says the task's lists are its own */
    if (binds) {
        /* none too: every task sees the step's GPUs, as the user asked, not a share */
    } else if ((hint = cres__env_any(r, implicit)) != NULL) {
        bind_var = hint;
        bind = cres_resolver_getenv(r, hint);
    } else if (per_task && strstr(per_task, "gres/gpu")) {
        bind_var = "SLURM_TRES_PER_TASK";
        bind = per_task;
    } else {
        return CRES_OK;
    }
    snprintf(said->bound, sizeof said->bound, "%s=%s", bind_var,
             cres__quote_str(q, sizeof q, bind));
    return CRES_OK;
}

/* A Slurm node list (nodes_var) and its tasks per node (tpn_var) into l, one count per node;
   with no tpn_var, the nodes alone (their counts the caller's). */
CRES__PRIVATE cres_result cres__slurm_nodes(const cres_resolver *r, cres__layout *l,
                                            const char *nodes_var, const char *tpn_var,
                                            cres_error *err) {
    const char *who = r->vtable->name, *nodes = cres_resolver_getenv(r, nodes_var);
    const char *tpn = tpn_var ? cres_resolver_getenv(r, tpn_var) : "";
    const char *unread = nodes_var; /* if it fails */
    const cres_allocator *a = &r->config.allocator;
    char prefix[64], q[CRES__QUOTE_SIZE];
    size_t counts = 0;
    cres_result res;
    if (!tpn) return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s is not set", who, tpn_var);
    l->from = nodes_var;
    if ((res = cres__layout_hostlist(a, l, nodes, who, err)) == CRES_OK) {
        if ((res = cres__layout_unique(a, l, who, err)) != CRES_OK || !tpn_var) return res;
        res = cres_tasks_per_node_expand(tpn, l->tasks, l->nodes, &counts, err);
        if (res == CRES_ERR_BUFFER_TOO_SMALL || (res == CRES_OK && counts != l->nodes))
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "%s: %s=%s gives %zu counts for the %zu nodes of %s", who, tpn_var,
                              cres__quote_str(q, sizeof q, tpn), counts, l->nodes, nodes_var);
        unread = tpn_var;
    }
    if (res != CRES_OK) { /* the reader's message, after the variable's name */
        snprintf(prefix, sizeof prefix, "%s: %s: ", who, unread);
        return cres__wrap(err, res, CRES_ERR_ENVIRONMENT, prefix);
    }
    return cres__layout_total(l, who, err);
}

/* No step: an sbatch script or an salloc shell, where this process is none of the job's
   tasks. The cluster is the job's allocation as srun and mpirun see it there: the nodes of
   SLURM_JOB_NODELIST with SLURM_TASKS_PER_NODE slots each (the job's tasks per node: what an
   srun without -n starts, and the slots Open MPI's ras/slurm and PRRTE give each node).
   SLURM_JOB_CPUS_PER_NODE counts CPUs, not tasks. A SLURM_PROCID above 0 is a task whose step
   variables are missing (the batch script is task 0): an error, never a guess. A
   heterogeneous job's script sees its first component in those variables and each in
   SLURM_*_HET_GROUP_<n> (src/slurmctld/job_scheduler.c _set_het_job_env): which of them, or
   what union, the caller means is not said, so it is refused. (A step names its own nodes
   whole, several components' too: src/common/env.c env_array_for_step.) This part says which
   variable lists the nodes (*nodes); cres__slurm_allocation takes them once read. */
CRES__PRIVATE cres_result cres__slurm_job_nodes(const cres_resolver *r, const char **nodes,
                                                cres_error *err) {
    const char *who = r->vtable->name;
    const char *het = /* SLURM_PACK_SIZE before Slurm 20.02 */
        cres_resolver_getenv(r, "SLURM_HET_SIZE") ? "SLURM_HET_SIZE" : "SLURM_PACK_SIZE";
    int rank = 0, components = 1;
    cres_result res;
    if (!cres_resolver_getenv(r, CRES__SLURM_JOB_ID) && !cres_resolver_getenv(r, CRES__SLURM_JOBID))
        return cres__fail(
            err, CRES_ERR_ENVIRONMENT,
            "%s: not in a Slurm job: SLURM_STEP_NODELIST and SLURM_JOB_ID are not set", who);
    if ((res = cres__env_int(r, het, 1, INT_MAX, &components, err)) != CRES_OK) return res;
    if (components > 1)
        return cres__fail(err, CRES_ERR_UNSUPPORTED,
                          "%s: %s=%d: a heterogeneous job's script, whose SLURM_JOB_NODELIST is "
                          "its first component alone; start the tasks with srun",
                          who, het, components);
    if ((res = cres__env_int(r, "SLURM_PROCID", 0, INT_MAX, &rank, err)) != CRES_OK) return res;
    if (rank > 0)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: SLURM_PROCID=%d is set but SLURM_STEP_NODELIST is not: the step's "
                          "variables are missing",
                          who, rank);
    *nodes = "SLURM_JOB_NODELIST";
    if (!cres_resolver_getenv(r, *nodes) && cres_resolver_getenv(r, "SLURM_NODELIST"))
        *nodes = "SLURM_NODELIST"; /* the older name */
    if (!cres_resolver_getenv(r, *nodes))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: %s is set but neither SLURM_STEP_NODELIST (a step) nor "
                          "SLURM_JOB_NODELIST (the job's allocation) is",
                          who,
                          cres_resolver_getenv(r, CRES__SLURM_JOB_ID) ? CRES__SLURM_JOB_ID
                                                                      : CRES__SLURM_JOBID);
    return CRES_OK;
}

/* The allocation's nodes (`nodes`, their list's variable) read into l: the job's counts must
   agree, and no task is this process's. */
CRES__PRIVATE cres_result cres__slurm_allocation(const cres_resolver *r, cres__layout *l,
                                                 const char *nodes, cres_error *err) {
    const char *ntasks = cres_resolver_getenv(r, "SLURM_NTASKS") ? "SLURM_NTASKS" : "SLURM_NPROCS";
    const char *nnodes =
        cres_resolver_getenv(r, "SLURM_JOB_NUM_NODES") ? "SLURM_JOB_NUM_NODES" : "SLURM_NNODES";
    cres_result res;
    if ((res = cres__env_agrees(r, ntasks, l->ntasks, "SLURM_TASKS_PER_NODE", err)) != CRES_OK ||
        (res = cres__env_agrees(r, nnodes, (int)l->nodes, nodes, err)) != CRES_OK)
        return res;
    cres__log(r, CRES_LOG_INFO,
              "%s: no job step (an sbatch script or an salloc shell): the cluster is the job's "
              "allocation, %zu nodes with %d task slots (%s, SLURM_TASKS_PER_NODE), and no task "
              "is this process's; srun starts the tasks",
              r->vtable->name, l->nodes, l->ntasks, nodes);
    l->rank = -1;
    l->no_task = "no job step, SLURM_STEP_NODELIST is not set: an sbatch script or an salloc "
                 "shell; start the tasks with srun";
    return CRES_OK;
}

/* The step's nodes, tasks per node, distribution and this task's rank and place. */
/* srun names each task's node twice: SLURM_NODEID in the step's node list, and
   SLURMD_NODENAME, the same node's name. */
CRES__PRIVATE cres_result cres__slurm_node_agrees(const cres_resolver *r, const cres__layout *l,
                                                  cres_error *err) {
    const char *name = cres_resolver_getenv(r, "SLURMD_NODENAME");
    char q[CRES__QUOTE_SIZE], qh[CRES__QUOTE_SIZE];
    if (!name || l->own_node < 0 || strcmp(name, l->hosts[l->own_node]) == 0) return CRES_OK;
    return cres__fail(
        err, CRES_ERR_ENVIRONMENT,
        "%s: SLURMD_NODENAME=%s but SLURM_NODEID=%d is %s in SLURM_STEP_NODELIST", r->vtable->name,
        cres__quote_str(q, sizeof q, name), l->own_node,
        cres__quote_str(qh, sizeof qh, l->hosts[l->own_node]));
}

/* The step's or the allocation's layout, as a cres__layout_reader (the Slurm backend's
   options say nothing of it). */
CRES__PRIVATE cres_result cres__slurm_read_layout(const cres_resolver *r, const void *options,
                                                  cres__layout *l, cres_error *err) {
    CRES__BYTE_ALIGNED static const char job_counts[] =
        "SLURM_NTASKS\0SLURM_NPROCS\0SLURM_STEP_NUM_NODES\0SLURM_NNODES\0";
    const char *who = r->vtable->name, *nodes = "SLURM_STEP_NODELIST", *name;
    int ntasks = 0, i, step = cres_resolver_getenv(r, nodes) != NULL;
    cres_result res;
    (void)options;
    if (!step) /* one call of cres__slurm_nodes for both: inlined, without unwind notes */
        res = cres__slurm_job_nodes(r, &nodes, err);
    else if ((res = cres__env_need(r, "SLURM_PROCID", 0, CRES_MAX_HOSTLIST_HOSTS, &l->rank, err)) ==
             CRES_OK)
        res = cres__env_need(r, "SLURM_STEP_NUM_TASKS", 1, CRES_MAX_HOSTLIST_HOSTS, &ntasks, err);
    if (res == CRES_OK)
        res = cres__slurm_nodes(r, l, nodes,
                                step ? "SLURM_STEP_TASKS_PER_NODE" : "SLURM_TASKS_PER_NODE", err);
    if (res != CRES_OK) return res;
    if (!step) return cres__slurm_allocation(r, l, nodes, err);
    if (l->ntasks != ntasks)
        return cres__fail(
            err, CRES_ERR_ENVIRONMENT,
            "%s: SLURM_STEP_TASKS_PER_NODE adds up to %d tasks, SLURM_STEP_NUM_TASKS is %d", who,
            l->ntasks, ntasks);
    if (l->rank >= ntasks)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: SLURM_PROCID %d is not below SLURM_STEP_NUM_TASKS %d", who, l->rank,
                          ntasks);
    /* srun gives its tasks the step's counts under the job's names too: the tasks' under the
       first two names, the nodes' under the others */
    for (i = 0, name = job_counts; *name; i++, name = cres__next_name(name))
        if ((res = cres__env_agrees(r, name, i < 2 ? ntasks : (int)l->nodes,
                                    i < 2 ? "SLURM_STEP_NUM_TASKS" : "SLURM_STEP_NODELIST",
                                    err)) != CRES_OK)
            return res;
    l->said_by[0] = "SLURM_NODEID, SLURM_LOCALID";
    l->node_ranks = cres_resolver_getenv(r, "SLURM_GTIDS");
    if ((res = cres__env_int(r, "SLURM_NODEID", 0, (long long)l->nodes - 1, &l->own_node, err)) !=
            CRES_OK ||
        (res = cres__env_int(r, "SLURM_LOCALID", 0, CRES_MAX_HOSTLIST_HOSTS, &l->own_local, err)) !=
            CRES_OK ||
        (res = cres__slurm_node_agrees(r, l, err)) != CRES_OK)
        return res;
    return cres__slurm_deal(r, l, err);
}
/* srun's step for MPI, which has no Slurm options */
#define cres__slurm_layout(r, l, err) cres__slurm_read_layout(r, NULL, l, err)
#endif

#ifndef CLUSTER_RESOLVER_NO_SLURM
CRES__BYTE_ALIGNED static const char cres__slurm_vtable_name[] = "slurm";
static const cres_resolver_vtable cres__slurm_vtable = {
    cres__slurm_vtable_name, cres__hpc_resolve, NULL, cres__hpc_accelerators, cres__hpc_destroy,
    cres__hpc_devices, NULL};

CRES__HPC_CREATE(cres_slurm_resolver_create, cres__slurm_vtable, cres_slurm_options,
                 cres__slurm_read_layout, cres__slurm_gpus)
#else
CRES__LEFT_OUT(cres_slurm_resolver_create, cres_slurm_options, "slurm", "CLUSTER_RESOLVER_NO_SLURM")
#endif /* CLUSTER_RESOLVER_NO_SLURM */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Hostfiles and scheduler allocations (MPI's, and the schedulers')               >>hostfile */

#if !defined(CLUSTER_RESOLVER_NO_PBS) || !defined(CLUSTER_RESOLVER_NO_LSF) || \
    !defined(CLUSTER_RESOLVER_NO_SGE) || !defined(CLUSTER_RESOLVER_NO_FLUX) || \
    !defined(CLUSTER_RESOLVER_NO_MPI)
/* Cuts the next blank-separated word off the line at *p; NULL at the end. */
CRES__PRIVATE char *cres__next_word(char **p) {
    char *s = *p, *w;
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    if (!*s) return NULL;
    for (w = s; *s && *s != ' ' && *s != '\t' && *s != '\r'; s++) {}
    if (*s) *s++ = '\0';
    *p = s;
    return w;
}

/* 1 = the n bytes at s are a slot count, an integer from 1 to CRES_MAX_HOSTLIST_HOSTS. */
CRES__PRIVATE int cres__slot_count(const char *s, size_t n, long long *count) {
    return cres__parse_decimal(s, n, count) == 1 && *count >= 1 &&
           *count <= CRES_MAX_HOSTLIST_HOSTS;
}

/* "slots=N" and the like: 1 = it is `key`=N with N a slot count. */
CRES__PRIVATE int cres__hostfile_count(const char *word, const char *key, long long *n) {
    size_t k = strlen(key);
    if (strncmp(word, key, k) != 0 || (word[k] != '=' && word[k] != ':')) return 0;
    return cres__slot_count(word + k + 1, strlen(word + k + 1), n);
}

/* Reads one hostfile line: "host", "host slots=N [max_slots=M]" (Open MPI) or "host:N"
   (MPICH); 0 slots = a blank or comment line. NULL, or what the word *bad is not (the
   caller's one refusal names both). */
CRES__PRIVATE const char *cres__hostfile_line(char *line, char **host, long long *slots,
                                              char **bad) {
    CRES__BYTE_ALIGNED static const char keys[] = "slots\0max_slots\0max-slots\0";
    char *colon;
    const char *key;
    long long ignored;
    *slots = 0;
    line[strcspn(line, "#")] = '\0';
    if (!(*host = *bad = cres__next_word(&line))) return NULL;
    *slots = 1;
    colon = strchr(*host, ':');
    if (colon && !strchr(colon + 1, ':')) { /* an IPv6 literal has several ':' */
        if (!cres__slot_count(colon + 1, strlen(colon + 1), slots))
            return "host:N with N from 1 to " CRES__STR(CRES_MAX_HOSTLIST_HOSTS);
        *colon = '\0';
    }
    if (!**host || strlen(*host) > CRES_MAX_NAME_LENGTH || cres__bad_text(*host, 1))
        return "a host name";
    while ((*bad = cres__next_word(&line)) != NULL) {
        for (key = keys; *key; key = cres__next_name(key))
            if (cres__hostfile_count(*bad, key, key == keys ? slots : &ignored)) break;
        if (!*key) return "slots=N or max_slots=N";
    }
    return NULL;
}

/* Reads a hostfile into l (text becomes l->names): hosts in order of first mention, a
   host named again adds its slots. */
CRES__PRIVATE cres_result cres__hostfile_parse(const cres_allocator *a, char *text, cres__layout *l,
                                               const char *who, cres_error *err) {
    size_t lines = 1, number, i, n = 0;
    cres__name_at *seen;
    char *p;
    cres_result res;
    l->names = text;
    for (p = text; *p; p++) lines += *p == '\n';
    if (lines > (size_t)CRES_MAX_HOSTLIST_HOSTS)
        return cres__fail(err, CRES_ERR_LIMIT, "%s: hostfile of more than %d lines", who,
                          CRES_MAX_HOSTLIST_HOSTS);
    /* room for the hosts, then for the merge's (name, line) pairs: no allocation of its own */
    if ((res = cres__layout_reserve(a, l, lines * (1 + sizeof *seen / sizeof *l->hosts), who,
                                    err)) != CRES_OK)
        return res;
    seen = (cres__name_at *)(void *)(l->hosts + lines);
    for (p = text, number = 1; p; number++) {
        char *eol = strchr(p, '\n'), *host, *bad, q[CRES__QUOTE_SIZE];
        const char *not_a;
        long long slots;
        if (eol) *eol = '\0';
        if ((not_a = cres__hostfile_line(p, &host, &slots, &bad)) != NULL)
            return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: hostfile line %zu: %s is not %s",
                              who, number, cres__quote_str(q, sizeof q, bad), not_a);
        p = eol ? eol + 1 : NULL;
        if (!slots) continue;
        l->hosts[n] = host;
        l->tasks[n++] = (int)slots;
    }
    if (!n) return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: the hostfile names no host", who);
    /* Merge repeated hosts into their first line. */
    for (i = 0; i < n; i++) {
        seen[i].name = l->hosts[i];
        seen[i].at = i;
    }
    qsort(seen, n, sizeof *seen, cres__cmp_name_at);
    for (i = 1; i < n; i++) {
        if (strcmp(seen[i].name, seen[i - 1].name) != 0) continue;
        /* both <= 1e6 lines of <= 1e6: checked below */
        l->tasks[seen[i - 1].at] += l->tasks[seen[i].at];
        if (l->tasks[seen[i - 1].at] > CRES_MAX_HOSTLIST_HOSTS)
            l->tasks[seen[i - 1].at] = CRES_MAX_HOSTLIST_HOSTS + 1;
        l->tasks[seen[i].at] = 0;
        seen[i].at = seen[i - 1].at;
    }
    for (i = l->nodes = 0; i < n; i++) {
        if (!l->tasks[i]) continue;
        l->hosts[l->nodes] = l->hosts[i];
        l->tasks[l->nodes++] = l->tasks[i];
    }
    return CRES_OK;
}

/* Ranks placed when every node takes at most t of its slots. */
CRES__PRIVATE long long cres__placed_below(const cres__layout *l, long long t) {
    long long sum = 0;
    size_t i;
    for (i = 0; i < l->nodes; i++) sum += l->tasks[i] < t ? l->tasks[i] : t;
    return sum;
}

/* Mapping by node (mpirun --map-by node) places one rank per node and round, skipping full
   nodes: every node gets min(slots, t - 1) and the last round's rest goes to the first nodes
   with room, t the first round that places enough (found by bisection, so it stays linear
   in the nodes). */
CRES__PRIVATE void cres__fill_by_node(cres__layout *l, long long size) {
    long long lo = 1, hi = CRES_MAX_HOSTLIST_HOSTS + 1, rest;
    size_t i;
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (cres__placed_below(l, mid) >= size) hi = mid;
        else lo = mid + 1;
    }
    rest = size - cres__placed_below(l, lo - 1);
    for (i = 0; i < l->nodes; i++) {
        int full = l->tasks[i] >= lo;
        if (l->tasks[i] > lo - 1) l->tasks[i] = (int)(lo - 1);
        if (full && rest > 0) {
            l->tasks[i]++;
            rest--;
        }
    }
}

/* Ranks fill the hostfile's slots: in order, each host's slots first (mpirun's default,
   MPICH's too), or round-robin over the hosts when mapping by node. More ranks than slots
   is an error; hosts left without a rank drop out. */
CRES__PRIVATE cres_result cres__mpi_fill(cres__layout *l, int size, const char *size_var,
                                         int by_node, const char *who, cres_error *err) {
    size_t i, kept = 0;
    long long slots = cres__placed_below(l, CRES_MAX_HOSTLIST_HOSTS + 1), left = size;
    if (slots < size)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s has %lld slots for %s=%d ranks", who,
                          l->from ? l->from : "the hostfile", slots, size_var, size);
    if (by_node) cres__fill_by_node(l, size);
    for (i = 0; i < l->nodes; i++) {
        int take = l->tasks[i] < left ? l->tasks[i] : (int)left;
        left -= take;
        if (!take) continue;
        l->hosts[kept] = l->hosts[i];
        l->tasks[kept++] = take;
    }
    l->nodes = kept;
    l->ntasks = size;
    return CRES_OK;
}

/* Grid Engine's PE_HOSTFILE ("host slots queue processors" a line) or, with pairs set, LSF's
   LSB_MCPU_HOSTS ("hostA 4 hostB 4": words in pairs) as the "host slots=N" lines the
   hostfile reader takes: a new text in *out, which the caller frees, on failure too. */
CRES__PRIVATE cres_result cres__slot_lines(const cres_allocator *a, const char *in, int pairs,
                                           char **out, const char *who, cres_error *err) {
    const char *blank = pairs ? " \t" : " \t\r", *word_end = pairs ? " \t" : " \t\r\n", *p, *line;
    size_t n = strlen(in), number = 1, words = 0;
    char *o, q[CRES__QUOTE_SIZE];
    long long count;
    *out = NULL;
    if (n > CRES_MAX_DOCUMENT_BYTES) /* the caller names the variable */
        return cres__fail(err, CRES_ERR_LIMIT, "%s: more than %u bytes", who,
                          (unsigned)CRES_MAX_DOCUMENT_BYTES);
    /* each "host slots=N\n" is 7 bytes more than its words and their blank (3 bytes or more),
       and the next starts a byte further on: 2.5n + 4 bytes at most with the NUL */
    if (!(o = *out = (char *)cres__alloc(a, 3 * n + 16)))
        return cres__oom(err, who);
    for (p = line = in;; number++, line = ++p) { /* PE_HOSTFILE's lines; LSB_MCPU_HOSTS is one */
        do {
            const char *host = p + strspn(p, blank), *slots;
            size_t hn = strcspn(host, word_end), sn;
            slots = host + hn + strspn(host + hn, blank);
            sn = strcspn(slots, word_end);
            if (!hn) break;
            words += sn ? 2 : 1;
            if (!sn && !pairs)
                return cres__fail(err, CRES_ERR_ENVIRONMENT,
                                  "%s: line %zu: %s has fewer than two fields (host slots queue "
                                  "processors)",
                                  who, number, cres__quote(q, sizeof q, line, strcspn(line, "\n")));
            if (!sn) break;
            if (pairs && !cres__slot_count(slots, sn, &count))
                return cres__fail(err, CRES_ERR_ENVIRONMENT,
                                  "%s: LSB_MCPU_HOSTS: %s is not a slot count (\"host N host N\")",
                                  who, cres__quote(q, sizeof q, slots, sn));
            o += sprintf(o, "%.*s slots=%.*s\n", (int)hn, host, (int)sn, slots);
            p = slots + sn;
        } while (pairs);
        p += strcspn(p, pairs ? "" : "\n"); /* the end of the line, or of LSB_MCPU_HOSTS */
        if (!*p) break;
    }
    *o = '\0';
    if (pairs && (words % 2 || !words))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: LSB_MCPU_HOSTS=%s has %zu words, not host and count pairs", who,
                          cres__quote(q, sizeof q, in, n), words);
    return CRES_OK;
}

/* "who: rest" becomes "who: VAR ("value"): rest", so a hostfile error names its source. */
CRES__PRIVATE void cres__name_source(cres_error *err, const char *who, const char *var,
                                     const char *value) {
    char old[CRES_ERROR_MESSAGE_SIZE], q[CRES__QUOTE_SIZE];
    size_t n = strlen(who);
    if (strncmp(err->message, who, n) != 0 || strncmp(err->message + n, ": ", 2) != 0) return;
    memcpy(old, err->message, sizeof old);
    snprintf(err->message, sizeof err->message, "%s: %s (%s): %s", who, var,
             cres__quote_str(q, sizeof q, value), old + n + 2);
}

/* The allocation a scheduler gave: a file of hosts (`var` names it) or LSB_MCPU_HOSTS.
   CRES_ERR_NOT_FOUND when var is not set. */
CRES__PRIVATE cres_result cres__sched_read(const cres_resolver *r, const char *var,
                                           cres__layout *l, cres_error *err) {
    const cres_allocator *a = &r->config.allocator;
    const char *who = r->vtable->name, *v = cres_resolver_getenv(r, var);
    char *text, *lines;
    cres_result res;
    if (!v || !*v) return CRES_ERR_NOT_FOUND;
    if (strcmp(var, "LSB_MCPU_HOSTS") == 0)
        res = cres__slot_lines(a, v, 1, &text, who, err);
    else
        res = cres__read_small_file(r, v, CRES_MAX_DOCUMENT_BYTES, &text, err);
    if (res == CRES_OK && strcmp(var, "PE_HOSTFILE") == 0) {
        res = cres__slot_lines(a, text, 0, &lines, who, err);
        cres__free(a, text);
        text = lines;
    }
    l->names = text; /* l owns it, on failure too */
    if (res == CRES_OK) {
        res = cres__hostfile_parse(a, text, l, who, err);
        l->from = var;
    }
    if (res == CRES_OK) {
        /* every node's slots: the reader caps each at CRES_MAX_HOSTLIST_HOSTS + 1 */
        long long slots = cres__placed_below(l, CRES_MAX_HOSTLIST_HOSTS + 1);
        if (slots > CRES_MAX_HOSTLIST_HOSTS)
            res = cres__fail(err, CRES_ERR_LIMIT, "%s: %lld slots, more than %d", who, slots,
                             CRES_MAX_HOSTLIST_HOSTS);
        l->ntasks = (int)(slots > CRES_MAX_HOSTLIST_HOSTS ? 0 : slots);
    }
    if (res == CRES_OK)
        cres__log(r, CRES_LOG_INFO, "%s: hosts from %s (%s): %zu hosts, %d slots", who, var, v,
                  l->nodes, l->ntasks);
    if (res != CRES_OK && res != CRES_ERR_OUT_OF_MEMORY && err) /* name the file */
        cres__name_source(err, who, var, v);
    return res;
}

typedef struct cres__mpi_identity {
    int rank, size;              /* size -1 = unknown */
    int local_rank, local_size;  /* -1 = unknown */
    const char *source;          /* "Open MPI" */
    const char *size_var;        /* "OMPI_COMM_WORLD_SIZE"; NULL for PMIx */
    const char *local_names;     /* the local rank's and size's names, for messages */
} cres__mpi_identity;

/* The MPI launcher families, a row of their four names each ("" for none): rank, size,
   source ("Open MPI"), and "LOCAL_RANK, LOCAL_SIZE" (the names read, and for messages), in
   one literal (see "Footprint" in >>impl).
   The first family whose rank is set is read; the last row (jsrun, which IBM Spectrum MPI's
   ranks see beside Open MPI's names) is only compared. MPICH's local rank and size have two
   rows: Hydra's names, then Cray PALS's, read when Hydra's are not set. */
#define CRES__MPI_FAMILY(rank, size, source, local_names) \
    rank "\0" size "\0" source "\0" local_names "\0"
CRES__BYTE_ALIGNED static const char cres__mpi_names[] =
    CRES__MPI_FAMILY("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI",
                     "OMPI_COMM_WORLD_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_SIZE")
    CRES__MPI_FAMILY("MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MVAPICH",
                     "MV2_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_SIZE")
    CRES__MPI_FAMILY("PMI_RANK", "PMI_SIZE", "MPICH", "MPI_LOCALRANKID, MPI_LOCALNRANKS")
    CRES__MPI_FAMILY("PMI_RANK", "PMI_SIZE", "MPICH", "PMI_LOCAL_RANK, PMI_LOCAL_SIZE")
    CRES__MPI_FAMILY("PMIX_RANK", "", "PMIx", "")
    CRES__MPI_FAMILY("JSM_NAMESPACE_RANK", "JSM_NAMESPACE_SIZE", "jsrun", "");
#undef CRES__MPI_FAMILY
#define CRES__MPI_FAMILIES 5 /* read; then jsrun's row */

/* Row i of cres__mpi_names: its rank's name, the others following (cres__next_name). */
CRES__PRIVATE const char *cres__mpi_row(size_t i) {
    const char *p = cres__mpi_names;
    for (i *= 4; i; i--) p = cres__next_name(p);
    return p;
}

/* jsrun's names, from its row: literals of their own would be second copies. */
#define CRES__JSM_RANK cres__mpi_row(CRES__MPI_FAMILIES)
#define CRES__JSM_SIZE cres__next_name(CRES__JSM_RANK)

/* Leaves out the first host, LSF's launch node: no rank runs there. */
CRES__PRIVATE void cres__lsf_drop_launch_node(const cres_resolver *r, cres__layout *l,
                                              const char *why) {
    cres__log(r, CRES_LOG_INFO, "%s: leaving out the launch node %s (%s)", r->vtable->name,
              l->hosts[0], why);
    l->nodes--;
    l->ntasks--;
    memmove(l->hosts, l->hosts + 1, l->nodes * sizeof *l->hosts);
    memmove(l->tasks, l->tasks + 1, l->nodes * sizeof *l->tasks);
}

/* jsrun's resource sets per host (jsrun -r): the same number of ranks, JSM_NAMESPACE_LOCAL_SIZE,
   on every host, packed in host order (its default -d packed), whatever the slots (a Summit
   node has 42 cores, a job often 6 ranks on it). Only when JSM_NAMESPACE_SIZE is the hosts
   times that, and every host has the slots: else CRES_ERR_NOT_FOUND, the placement unsaid. */
CRES__PRIVATE cres_result cres__lsf_resource_sets(const cres_resolver *r, int size, cres__layout *l,
                                                  cres_error *err) {
    int per_host = -1;
    size_t i;
    cres_result res = cres__env_int(r, "JSM_NAMESPACE_LOCAL_SIZE", 1, INT_MAX, &per_host, err);
    if (res != CRES_OK) return res;
    if (per_host < 1 || (long long)per_host * (long long)l->nodes != size)
        return CRES_ERR_NOT_FOUND;
    for (i = 0; i < l->nodes; i++)
        if (l->tasks[i] < per_host) return CRES_ERR_NOT_FOUND;
    cres__log(r, CRES_LOG_INFO,
              "%s: jsrun's JSM_NAMESPACE_SIZE=%d ranks, JSM_NAMESPACE_LOCAL_SIZE=%d on each of the "
              "%zu hosts, packed",
              r->vtable->name, size, per_host, l->nodes);
    for (i = 0; i < l->nodes; i++) l->tasks[i] = per_host;
    l->ntasks = size;
    return CRES_OK;
}

/* The slots of LSF's allocation (from `var`) that ranks use. LSF on CSM systems (Summit,
   Sierra) lists the launch node first, with one slot, in LSB_DJOB_RANKFILE and
   LSB_MCPU_HOSTS: a first host of one slot is that node when CSM_ALLOCATION_ID is set.
   jsrun says only how many ranks it runs (JSM_NAMESPACE_SIZE), not on which slots, so its
   count must be every slot, or every slot but a first host of one: the launch node, whether
   or not CSM_ALLOCATION_ID is set. Any other count leaves the placement unsaid: an error
   naming both. (mpirun fills slots in order, so it may use fewer.) */
CRES__PRIVATE cres_result cres__lsf_slots(const cres_resolver *r, const char *var,
                                          cres__layout *l, cres_error *err) {
    int size = -1, launch_node = l->nodes >= 2 && l->tasks[0] == 1;
    cres_result res =
        cres__env_int(r, CRES__JSM_SIZE, 1, CRES_MAX_HOSTLIST_HOSTS, &size, err);
    if (res != CRES_OK) return res;
    if (launch_node && cres__env_set(r, "CSM_ALLOCATION_ID"))
        cres__lsf_drop_launch_node(r, l, "CSM_ALLOCATION_ID is set");
    else if (launch_node && l->ntasks == size + 1)
        cres__lsf_drop_launch_node(r, l, "one slot, and jsrun's ranks fill the others");
    else
        launch_node = 0;
    if (size < 0 || l->ntasks == size) return CRES_OK;
    if ((res = cres__lsf_resource_sets(r, size, l, err)) != CRES_ERR_NOT_FOUND) return res;
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "%s: jsrun runs JSM_NAMESPACE_SIZE=%d ranks but %s holds %d slots on %zu "
                      "hosts%s; jsrun does not say which slots a job of another size uses",
                      r->vtable->name, size, var, l->ntasks, l->nodes,
                      launch_node ? " besides the launch node" : "");
}

/* jsrun gives each resource set its own GPUs in CUDA_VISIBLE_DEVICES, shared by the set's
   ranks (jsrun(1), --gpu_per_rs): never the node's list. Outside jsrun: `unsaid`. */
CRES__PRIVATE cres_result cres__jsrun_says(const cres_resolver *r, cres__gpu_word *said,
                                           const char *unsaid) {
    if (cres__env_set(r, CRES__JSM_RANK))
        snprintf(said->bound, sizeof said->bound,
                 "JSM_NAMESPACE_RANK is set: jsrun binds GPUs to each resource set");
    else
        said->unsaid = unsaid;
    return CRES_OK;
}

/* LSF's GPU word: jsrun's; outside jsrun LSF does not say. */
CRES__PRIVATE cres_result cres__jsrun_gpus(const cres_resolver *r, cres__gpu_word *said,
                                           cres_error *err) {
    (void)err;
    return cres__jsrun_says(r, said, "LSF does not say");
}

/* Launchers set several families' names (Open MPI PMIx's too, Cray PALS PMI's, jsrun its
   own beside Open MPI's): each other rank and size that is set must be the one read. */
CRES__PRIVATE cres_result cres__mpi_names_agree(const cres_resolver *r, size_t read,
                                                const cres__mpi_identity *id, cres_error *err) {
    const char *said = cres__mpi_row(read), *rank = cres__mpi_names;
    size_t i;
    cres_result res = CRES_OK;
    for (i = 0; i <= CRES__MPI_FAMILIES && res == CRES_OK; i++, rank = cres__mpi_row(i)) {
        const char *size = cres__next_name(rank);
        if (i == read) continue;
        res = cres__env_agrees(r, rank, id->rank, said, err);
        if (res == CRES_OK && *size && id->size >= 0)
            res = cres__env_agrees(r, size, id->size, cres__next_name(said), err);
    }
    return res;
}

/* Rank and sizes from the first launcher family whose rank variable is set (for MPICH, with
   its local names set: Hydra's, else Cray PALS's). A duplicate PMI row in names_agree
   compares PMI_RANK with itself, which always agrees. */
CRES__PRIVATE cres_result cres__mpi_identify(const cres_resolver *r, cres__mpi_identity *id,
                                             cres_error *err) {
    size_t i;
    cres_result res = CRES_OK;
    const int max = CRES_MAX_HOSTLIST_HOSTS;
    id->size = id->local_rank = id->local_size = -1;
    for (i = 0; i < CRES__MPI_FAMILIES; i++) {
        const char *rank = cres__mpi_row(i), *size = cres__next_name(rank);
        const char *source = cres__next_name(size), *names = cres__next_name(source);
        const char *local_size = strchr(names, ','); /* names: "LOCAL_RANK, LOCAL_SIZE" */
        char local[32];                              /* LOCAL_RANK, copied out */
        if (!cres_resolver_getenv(r, rank)) continue;
        id->source = source;
        id->size_var = *size ? size : NULL;
        id->local_names = *names ? names : NULL;
        if (local_size) { /* the rows with a size have local names */
            memcpy(local, names, (size_t)(local_size - names));
            local[local_size - names] = '\0';
            local_size += 2;
            if (i == 2 && !cres_resolver_getenv(r, local_size) && !cres_resolver_getenv(r, local))
                continue; /* Hydra's names not set: Cray PALS's row */
            res = cres__env_need(r, size, 1, max, &id->size, err);
        }
        if (res == CRES_OK) /* below the size, if there is one */
            res = cres__env_need(r, rank, 0, (id->size > 0 ? id->size : max) - 1, &id->rank, err);
        if (res == CRES_OK && local_size)
            res = cres__env_int(r, local_size, 1, id->size, &id->local_size, err);
        if (res == CRES_OK && local_size) /* below the local size, or at least the world's */
            res = cres__env_int(r, local, 0, (id->local_size > 0 ? id->local_size : id->size) - 1,
                                &id->local_rank, err);
        return res == CRES_OK ? cres__mpi_names_agree(r, i, id, err) : res;
    }
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "%s: no MPI launcher found: OMPI_COMM_WORLD_RANK, MV2_COMM_WORLD_RANK, "
                      "PMI_RANK and PMIX_RANK are not set",
                      r->vtable->name);
}

/* Open MPI tells its ranks how mpirun mapped (which node gets how many ranks) and ranked
   (which of those ranks) them. Policies within a node (slot, core, socket...) place by
   blocks; "node" deals round-robin; others (ppr, seq, rankfile) we cannot follow. Sets l's
   deal from the ranking policy (by default the mapping's); *by_node = mapping by node. */
CRES__PRIVATE cres_result cres__mpi_policies(const cres_resolver *r, cres__layout *l, int *by_node,
                                             cres_error *err) {
    CRES__BYTE_ALIGNED static const char known[] =
        "node\0slot\0core\0hwthread\0socket\0package\0numa\0board\0"
        "l1cache\0l2cache\0l3cache\0";
    CRES__BYTE_ALIGNED static const char vars[] =
        "OMPI_MCA_rmaps_base_mapping_policy\0OMPI_MCA_rmaps_base_ranking_policy\0";
    const char *policy[2], *var = vars, *k; /* policy: pointers into known */
    char q[CRES__QUOTE_SIZE];
    int i;
    for (i = 0; i < 2; i++, var = cres__next_name(var)) {
        const char *v = cres_resolver_getenv(r, var);
        size_t n;
        policy[i] = i ? policy[0] : cres__next_name(known); /* unset: by slot, ranked as mapped */
        if (!v || !*v) continue;
        n = strcspn(v, ":");
        for (k = known; *k && (strncmp(v, k, n) != 0 || k[n]); k = cres__next_name(k)) {}
        if (!*k)
            return cres__fail(err, CRES_ERR_UNSUPPORTED,
                              "%s: %s=%s is not supported (by slot, core, socket... or node); pass "
                              "--map-by slot or node",
                              r->vtable->name, var, cres__quote_str(q, sizeof q, v));
        policy[i] = k;
    }
    *by_node = policy[0] == known;
    l->deal = policy[1] == known ? CRES__DEAL_CYCLIC : CRES__DEAL_BLOCK;
    return CRES_OK;
}
#endif

/* ////////////////////////////////////////////////////////////////////////////////////////
   MPI: ranks started by mpirun, mpiexec or srun                                     >>mpi */

#ifndef CLUSTER_RESOLVER_NO_MPI
/* The functions here serve the mpi backend alone: a message of theirs names it in its
   format ("mpi: ..."), an argument fewer than r->vtable->name. */
/* Hosts from the hostfile given (options.hostfile), else from the scheduler that allocated
   the job, when it says (DESIGN's rule 6): Grid Engine, PBS, LSF, or the hostfile Open MPI
   was given (Kubeflow's MPIJob). Ranks fill the slots as mpirun fills them.
   CRES_ERR_NOT_FOUND: no hostfile given and no scheduler says. */
CRES__PRIVATE cres_result cres__mpi_from_hostfile(const cres_resolver *r, const char *path,
                                                  const cres__mpi_identity *id, cres__layout *l,
                                                  cres_error *err) {
    CRES__BYTE_ALIGNED static const char sources[] =
        "PE_HOSTFILE\0PBS_NODEFILE\0LSB_DJOB_RANKFILE\0LSB_MCPU_HOSTS\0"
        "OMPI_MCA_orte_default_hostfile\0";
    const char *source;
    char *text;
    int by_node = 0;
    cres_result res = CRES_ERR_NOT_FOUND;
    if (path && (res = cres__read_small_file(r, path, CRES_MAX_DOCUMENT_BYTES, &text, err)) ==
                    CRES_OK) {
        res = cres__hostfile_parse(&r->config.allocator, text, l, r->vtable->name, err);
        l->from = "the hostfile";
    }
    /* the first source set; source stays on it (this form, not a break, is the smaller) */
    for (source = sources; !path && *source && res == CRES_ERR_NOT_FOUND;
         source = res == CRES_ERR_NOT_FOUND ? cres__next_name(source) : source)
        res = cres__sched_read(r, source, l, err);
    if (res == CRES_OK && !path && *source == 'L') /* LSB_DJOB_RANKFILE, LSB_MCPU_HOSTS */
        res = cres__lsf_slots(r, source, l, err);
    if (res == CRES_OK) res = cres__mpi_policies(r, l, &by_node, err);
    if (res == CRES_OK)
        res = cres__mpi_fill(l, id->size, id->size_var, by_node, r->vtable->name, err);
    return res;
}

/* Every rank on this host: one node. */
CRES__PRIVATE cres_result cres__mpi_one_host(const cres_resolver *r, const char *hostname,
                                             const cres__mpi_identity *id, cres__layout *l,
                                             cres_error *err) {
    const cres_allocator *a = &r->config.allocator;
    const char *host = hostname ? hostname : cres_resolver_getenv(r, "PMIX_HOSTNAME");
    cres_result res;
    if (!host || !*host) host = "localhost";
    if ((res = cres__layout_reserve(a, l, 1, r->vtable->name, err)) != CRES_OK) return res;
    if (!(l->names = cres__strdup(a, host))) return cres__oom(err, r->vtable->name);
    l->hosts[0] = l->names;
    l->tasks[0] = l->ntasks = id->size;
    l->from = hostname ? "options.hostname" : "PMIX_HOSTNAME";
    return CRES_OK;
}

/* mpirun inside a Slurm allocation starts one daemon per node with srun, so the ranks see
   that step: its nodes, and SLURM_NODEID for their own. Each node holds local_size ranks
   in a block (Open MPI's default); the own rank's place checks that. */
CRES__PRIVATE cres_result cres__mpi_in_allocation(const cres_resolver *r,
                                                  const cres__mpi_identity *id, cres__layout *l,
                                                  cres_error *err) {
    size_t i;
    int by_node;
    cres_result res = cres__slurm_nodes(r, l, "SLURM_STEP_NODELIST", NULL, err);
    if (res != CRES_OK) return res;
    if ((long long)l->nodes * id->local_size != id->size)
        return cres__fail(
            err, CRES_ERR_ENVIRONMENT,
            "mpi: %d ranks do not fill the %zu nodes of SLURM_STEP_NODELIST with %d each; "
            "pass a hostfile",
            id->size, l->nodes, id->local_size);
    for (i = 0; i < l->nodes; i++) l->tasks[i] = id->local_size;
    l->ntasks = id->size;
    /* equal counts: mapping is moot */
    if ((res = cres__mpi_policies(r, l, &by_node, err)) != CRES_OK) return res;
    res = cres__env_need(r, "SLURM_NODEID", 0, (long long)l->nodes - 1, &l->own_node, err);
    l->said_by[0] = "SLURM_NODEID";
    l->said_by[1] = id->local_names;
    return res == CRES_OK ? cres__slurm_node_agrees(r, l, err) : res;
}

/* srun started the ranks itself when its step matches MPI's rank, size and local size: then
   Slurm's view is whole (distribution included). CRES_ERR_NOT_FOUND when it does not match,
   l fresh again (as cres__hpc_create gives it): mpirun's daemons can be a step of the same
   size by chance. */
CRES__PRIVATE cres_result cres__mpi_direct(const cres_resolver *r, const cres__mpi_identity *id,
                                           cres__layout *l, cres_error *err) {
    cres_result res = cres__slurm_layout(r, l, err);
    if (res != CRES_OK) return res;
    if (l->own_node < 0 || (id->local_size >= 0 && l->tasks[l->own_node] != id->local_size) ||
        (id->local_rank >= 0 && l->own_local >= 0 && l->own_local != id->local_rank)) {
        cres__layout_free(&r->config.allocator, l);
        l->own_node = l->own_local = l->own_local_size = -1;
        return CRES_ERR_NOT_FOUND;
    }
    cres__log(r, CRES_LOG_DEBUG, "mpi: srun started the ranks: using the Slurm step");
    if (l->own_local < 0) l->own_local = id->local_rank;
    l->own_local_size = id->local_size;
    l->said_by[1] = id->local_names;
    return CRES_OK;
}

/* Where the ranks run, from the first source that knows (manual section 7). */
CRES__PRIVATE cres_result cres__mpi_layout(const cres_resolver *r, const void *options,
                                           cres__layout *l, cres_error *err) {
    const cres_mpi_options *o = (const cres_mpi_options *)options;
    cres__mpi_identity id;
    int slurm_rank = -1, slurm_size = -1;
    cres_result res = cres__mpi_identify(r, &id, err);
    if (res != CRES_OK) return res;
    cres__log(r, CRES_LOG_DEBUG, "mpi: %s rank %d of %d", id.source, id.rank, id.size);
    if (!o->hostfile && cres_resolver_getenv(r, "SLURM_STEP_NODELIST") &&
        cres__env_int(r, "SLURM_PROCID", 0, CRES_MAX_HOSTLIST_HOSTS, &slurm_rank, NULL) ==
            CRES_OK &&
        cres__env_int(r, "SLURM_STEP_NUM_TASKS", 1, CRES_MAX_HOSTLIST_HOSTS, &slurm_size, NULL) ==
            CRES_OK &&
        slurm_rank == id.rank && (id.size < 0 || slurm_size == id.size) &&
        (res = cres__mpi_direct(r, &id, l, err)) != CRES_ERR_NOT_FOUND)
        return res; /* else not srun's ranks after all: what MPI says stands */
    l->rank = id.rank;
    l->own_local = id.local_rank;
    l->own_local_size = id.local_size;
    l->said_by[0] = id.local_names;
    if (id.size < 0)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "mpi: %s's PMIX_RANK gives no world size%s",
                          id.source,
                          o->hostfile ? " to place on the hostfile"
                                      : "; pass a hostfile (options.hostfile)");
    res = cres__mpi_from_hostfile(r, o->hostfile, &id, l, err);
    if (res != CRES_ERR_NOT_FOUND) return res; /* a hostfile given never gives NOT_FOUND */
    if (id.size == 1 || id.local_size == id.size)
        return cres__mpi_one_host(r, o->hostname, &id, l, err);
    if (id.local_size > 0 && cres_resolver_getenv(r, "SLURM_STEP_NODELIST"))
        return cres__mpi_in_allocation(r, &id, l, err);
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "mpi: the %s=%d ranks run on several hosts and the launcher does not say "
                      "which; pass the hostfile given to mpirun (options.hostfile)",
                      id.size_var, id.size);
}

/* mpirun and mpiexec say nothing of GPUs: each rank has what its environment had. Under jsrun
   jsrun's word holds, and in a Slurm job Slurm's (srun's own ranks, or the step of mpirun's
   daemons, whose ranks share their node's list). The Slurm names are single literals, which
   the Slurm backend's merge with (see "Footprint" in >>impl). */
CRES__PRIVATE cres_result cres__mpi_gpus(const cres_resolver *r, cres__gpu_word *said,
                                         cres_error *err) {
    if (!cres__env_set(r, CRES__JSM_RANK) &&
        (cres__env_set(r, "SLURM_STEP_NODELIST") || cres__env_set(r, "SLURM_JOB_ID") ||
         cres__env_set(r, "SLURM_JOBID")))
        return cres__slurm_gpus(r, said, err);
    return cres__jsrun_says(r, said, "mpirun and mpiexec do not say");
}

CRES__BYTE_ALIGNED static const char cres__mpi_vtable_name[] = "mpi";
static const cres_resolver_vtable cres__mpi_vtable = {
    cres__mpi_vtable_name, cres__hpc_resolve, NULL, cres__hpc_accelerators, cres__hpc_destroy,
    cres__hpc_devices, NULL};

CRES__HPC_CREATE(cres_mpi_resolver_create, cres__mpi_vtable, cres_mpi_options, cres__mpi_layout,
                 cres__mpi_gpus)
#else
CRES__LEFT_OUT(cres_mpi_resolver_create, cres_mpi_options, "mpi", "CLUSTER_RESOLVER_NO_MPI")
#endif /* CLUSTER_RESOLVER_NO_MPI */

/* ////////////////////////////////////////////////////////////////////////////////////////
   PBS, LSF, Grid Engine, Flux: ranks on a scheduler's allocation                >>sched */

#if !defined(CLUSTER_RESOLVER_NO_PBS) || !defined(CLUSTER_RESOLVER_NO_LSF) || \
    !defined(CLUSTER_RESOLVER_NO_SGE) || !defined(CLUSTER_RESOLVER_NO_FLUX)
/* A rank variable and its size (or the allocation's slots when size_var is NULL): the rank
   must be below it and the slots must hold them. */
CRES__PRIVATE cres_result cres__sched_rank(const cres_resolver *r, cres__layout *l,
                                           const char *rank_var, const char *size_var,
                                           cres_error *err) {
    int size = l->ntasks;
    cres_result res = CRES_OK;
    if (size_var) res = cres__env_need(r, size_var, 1, CRES_MAX_HOSTLIST_HOSTS, &size, err);
    if (res == CRES_OK) res = cres__env_need(r, rank_var, 0, size - 1, &l->rank, err);
    if (res == CRES_OK && size_var)
        res = cres__mpi_fill(l, size, size_var, 0, r->vtable->name, err);
    return res;
}

/* Ranks an MPI launcher started on the allocation (mpirun reads it, so it places them as
   in the mpi backend): its rank and sizes, the local ones checked against the placement,
   and Open MPI's mapping. CRES_ERR_NOT_FOUND when no launcher's rank variable is set. */
CRES__PRIVATE cres_result cres__sched_mpi(const cres_resolver *r, cres__layout *l,
                                          cres_error *err) {
    cres__mpi_identity id;
    int by_node = 0;
    cres_result res;
    if (!cres__env_any(r, "OMPI_COMM_WORLD_RANK\0MV2_COMM_WORLD_RANK\0PMI_RANK\0PMIX_RANK\0"))
        return CRES_ERR_NOT_FOUND;
    if ((res = cres__mpi_identify(r, &id, err)) != CRES_OK) return res;
    if (id.size < 0)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: %s's PMIX_RANK comes without a world size; use the mpi backend "
                          "with the hostfile given to the launcher",
                          r->vtable->name, id.source);
    l->rank = id.rank;
    l->own_local = id.local_rank;
    l->own_local_size = id.local_size;
    l->said_by[0] = id.local_names;
    if ((res = cres__mpi_policies(r, l, &by_node, err)) != CRES_OK) return res;
    return cres__mpi_fill(l, id.size, id.size_var, by_node, r->vtable->name, err);
}

/* No rank variable: the batch script, one process of its own. The allocation is the
   cluster and no task is this process's (never "the only task": it is not). */
CRES__PRIVATE cres_result cres__sched_script(const cres_resolver *r, cres__layout *l,
                                             const char *said) {
    cres__log(r, CRES_LOG_INFO,
              "%s: %s: the cluster is the allocation's %d slots and no task is this process's",
              r->vtable->name, said, l->ntasks);
    l->rank = -1;
    l->no_task = said;
    return CRES_OK;
}

#endif

#ifndef CLUSTER_RESOLVER_NO_PBS
CRES__BYTE_ALIGNED static const char cres__pbs_vtable_name[] = "pbs";
static const cres_resolver_vtable cres__pbs_vtable = {
    cres__pbs_vtable_name, cres__hpc_resolve, NULL, cres__hpc_accelerators, cres__hpc_destroy,
    cres__hpc_devices, NULL};

/* PBS says nothing of a task's GPUs, and under Cray PALS a wrapper script (ALCF's
   set_affinity_gpu_polaris.sh, say) may have bound each rank's already. */
CRES__PRIVATE cres_result cres__pbs_gpus(const cres_resolver *r, cres__gpu_word *said,
                                         cres_error *err) {
    (void)r, (void)err;
    said->unsaid = "PBS does not say (under Cray PALS a wrapper script may have bound it)";
    return CRES_OK;
}

/* pbsdsh's PBS_VNODENUM counts PBS_NODEFILE's lines; the layout (hosts merged in order of
   first mention) gives line i's host only when each host's lines are together. */
CRES__PRIVATE cres_result cres__pbs_grouped(const cres_resolver *r, const cres__layout *l,
                                            cres_error *err) {
    const char *path = cres_resolver_getenv(r, "PBS_NODEFILE");
    char *text, *line, q[CRES__QUOTE_SIZE];
    size_t node = 0, number = 1;
    int left = l->tasks[0];
    cres_result res = cres__read_small_file(r, path, CRES_MAX_DOCUMENT_BYTES, &text, err);
    if (res != CRES_OK) return res;
    for (line = text; line && res == CRES_OK; number++) {
        char *eol = strchr(line, '\n'), *host;
        size_t n;
        if (eol) *eol = '\0';
        host = line + strspn(line, " \t\r");
        n = strcspn(host, " \t\r#");
        if (memchr(host, ':', n) || strstr(host, "slots")) break; /* counts: not a node file */
        line = eol ? eol + 1 : NULL;
        if (!n) continue;
        if (!left && node + 1 < l->nodes) left = l->tasks[++node];
        if (strlen(l->hosts[node]) != n || memcmp(l->hosts[node], host, n) != 0) {
            char qh[CRES__QUOTE_SIZE];
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "pbs: PBS_NODEFILE line %zu is %s while %s has lines after it; "
                             "PBS_VNODENUM counts lines, so each host's lines must be together",
                             number, cres__quote(q, sizeof q, host, n),
                             cres__quote_str(qh, sizeof qh, l->hosts[node]));
        }
        left--;
    }
    cres__free(&r->config.allocator, text);
    return res;
}

/* Cray PALS's mpiexec: PALS_RANKID of PMI_SIZE (PMI_RANK, which PALS sets too, compared),
   its node and local rank and size checked against the placement. A nodefile of a line per
   node (Polaris, Aurora) says no ranks per node: mpiexec --ppn's count, PALS_LOCAL_SIZE on
   a full node; on a last one that holds fewer (-n 6 --ppn 4 on two), the ranks before the
   own node over the nodes before it. */
CRES__PRIVATE cres_result cres__pbs_pals(const cres_resolver *r, cres__layout *l, cres_error *err) {
    int rank = 0, ppn;
    size_t i;
    cres_result res =
        cres__env_int(r, "PALS_NODEID", 0, (long long)l->nodes - 1, &l->own_node, err);
    if (res == CRES_OK)
        res = cres__env_int(r, "PALS_LOCAL_RANKID", 0, INT_MAX, &l->own_local, err);
    if (res == CRES_OK)
        res = cres__env_int(r, "PALS_LOCAL_SIZE", 1, INT_MAX, &l->own_local_size, err);
    if (res == CRES_OK) res = cres__env_need(r, "PALS_RANKID", 0, INT_MAX, &rank, err);
    ppn = l->own_local_size;
    if (l->own_node > 0 && l->own_local >= 0 && rank - l->own_local > 0 &&
        (rank - l->own_local) % l->own_node == 0)
        ppn = (rank - l->own_local) / l->own_node;
    if (res == CRES_OK && ppn > 0 && (size_t)l->ntasks == l->nodes &&
        (long long)ppn * (long long)l->nodes <= CRES_MAX_HOSTLIST_HOSTS) {
        for (i = 0; i < l->nodes; i++) l->tasks[i] = ppn;
        l->ntasks = (int)l->nodes * ppn;
    }
    l->said_by[0] = "PALS_NODEID, PALS_LOCAL_RANKID, PALS_LOCAL_SIZE";
    if (res == CRES_OK) res = cres__sched_rank(r, l, "PALS_RANKID", "PMI_SIZE", err);
    if (res == CRES_OK) res = cres__env_agrees(r, "PMI_RANK", l->rank, "PALS_RANKID", err);
    return res;
}

/* PBS_NODEFILE has a line per slot. Ranks: Cray PALS's mpiexec (PALS_RANKID of PMI_SIZE,
   checked against PALS_NODEID and PALS_LOCAL_RANKID), else pbsdsh's PBS_VNODENUM (the
   slot's line: one task per slot), else the job script. */
CRES__PRIVATE cres_result cres__pbs_layout(const cres_resolver *r, const void *options,
                                           cres__layout *l, cres_error *err) {
    cres_result res = cres__sched_read(r, "PBS_NODEFILE", l, err);
    (void)options;
    if (res == CRES_ERR_NOT_FOUND)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "pbs: PBS_NODEFILE is not set%s",
                          cres__env_set(r, "PBS_JOBID") ? " (PBS_JOBID is)" : "");
    if (res != CRES_OK) return res;
    if (cres__env_set(r, "PALS_RANKID")) return cres__pbs_pals(r, l, err);
    if (cres__pbsdsh_task(r)) {
        if ((res = cres__pbs_grouped(r, l, err)) != CRES_OK) return res;
        return cres__sched_rank(r, l, "PBS_VNODENUM", NULL, err);
    }
    if ((res = cres__sched_mpi(r, l, err)) != CRES_ERR_NOT_FOUND) return res;
    return cres__sched_script(r, l,
                              "no rank variable (PALS_RANKID, PBS_VNODENUM, OMPI_COMM_WORLD_RANK, "
                              "PMI_RANK or another MPI rank): the job script");
}

CRES__HPC_CREATE(cres_pbs_resolver_create, cres__pbs_vtable, cres_pbs_options, cres__pbs_layout,
                 cres__pbs_gpus)
#else
CRES__LEFT_OUT(cres_pbs_resolver_create, cres_pbs_options, "pbs", "CLUSTER_RESOLVER_NO_PBS")
#endif /* CLUSTER_RESOLVER_NO_PBS */

#ifndef CLUSTER_RESOLVER_NO_LSF
CRES__BYTE_ALIGNED static const char cres__lsf_vtable_name[] = "lsf";
static const cres_resolver_vtable cres__lsf_vtable = {
    cres__lsf_vtable_name, cres__hpc_resolve, NULL, cres__hpc_accelerators, cres__hpc_destroy,
    cres__hpc_devices, NULL};

/* jsrun's ranks: JSM_NAMESPACE_RANK of _SIZE, the local rank and size checked against the
   placement, and the MPI names IBM Spectrum MPI sets beside them compared. */
CRES__PRIVATE cres_result cres__lsf_jsrun(const cres_resolver *r, cres__layout *l,
                                          cres_error *err) {
    cres__mpi_identity jsrun;
    cres_result res = cres__sched_rank(r, l, "JSM_NAMESPACE_RANK", "JSM_NAMESPACE_SIZE", err);
    memset(&jsrun, 0, sizeof jsrun);
    jsrun.rank = l->rank;
    jsrun.size = l->ntasks;
    l->said_by[0] = "JSM_NAMESPACE_LOCAL_RANK, JSM_NAMESPACE_LOCAL_SIZE";
    if (res == CRES_OK) res = cres__mpi_names_agree(r, CRES__MPI_FAMILIES, &jsrun, err);
    if (res == CRES_OK)
        res = cres__env_int(r, "JSM_NAMESPACE_LOCAL_RANK", 0, INT_MAX, &l->own_local, err);
    if (res == CRES_OK)
        res = cres__env_int(r, "JSM_NAMESPACE_LOCAL_SIZE", 1, INT_MAX, &l->own_local_size, err);
    return res;
}

/* LSB_DJOB_RANKFILE (a line per slot), else LSB_MCPU_HOSTS; ranks from jsrun's
   JSM_NAMESPACE_* (local rank and size checked), else the MPI launcher's, else the script. */
CRES__PRIVATE cres_result cres__lsf_layout(const cres_resolver *r, const void *options,
                                           cres__layout *l, cres_error *err) {
    const char *var = "LSB_DJOB_RANKFILE";
    cres_result res = cres__sched_read(r, var, l, err);
    (void)options;
    if (res == CRES_ERR_NOT_FOUND) res = cres__sched_read(r, var = "LSB_MCPU_HOSTS", l, err);
    if (res == CRES_ERR_NOT_FOUND)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "lsf: neither LSB_DJOB_RANKFILE nor LSB_MCPU_HOSTS is set");
    if (res == CRES_OK) res = cres__lsf_slots(r, var, l, err);
    if (res != CRES_OK) return res;
    if (cres__env_set(r, "JSM_NAMESPACE_RANK")) return cres__lsf_jsrun(r, l, err);
    if ((res = cres__sched_mpi(r, l, err)) != CRES_ERR_NOT_FOUND) return res;
    return cres__sched_script(
        r, l,
        "no rank variable (JSM_NAMESPACE_RANK, OMPI_COMM_WORLD_RANK, PMI_RANK or "
        "another MPI rank): the job script");
}

CRES__HPC_CREATE(cres_lsf_resolver_create, cres__lsf_vtable, cres_lsf_options, cres__lsf_layout,
                 cres__jsrun_gpus)
#else
CRES__LEFT_OUT(cres_lsf_resolver_create, cres_lsf_options, "lsf", "CLUSTER_RESOLVER_NO_LSF")
#endif /* CLUSTER_RESOLVER_NO_LSF */

#ifndef CLUSTER_RESOLVER_NO_SGE
CRES__BYTE_ALIGNED static const char cres__sge_vtable_name[] = "sge";
static const cres_resolver_vtable cres__sge_vtable = {
    cres__sge_vtable_name, cres__hpc_resolve, NULL, cres__hpc_accelerators, cres__hpc_destroy,
    cres__hpc_devices, NULL};

CRES__PRIVATE cres_result cres__sge_gpus(const cres_resolver *r, cres__gpu_word *said,
                                         cres_error *err) {
    (void)r, (void)err;
    said->unsaid = "Grid Engine does not say";
    return CRES_OK;
}

/* PE_HOSTFILE (NSLOTS, when set, must be its slots); ranks from the MPI launcher the job
   started (Open MPI reads PE_HOSTFILE itself), else the job script. */
CRES__PRIVATE cres_result cres__sge_layout(const cres_resolver *r, const void *options,
                                           cres__layout *l, cres_error *err) {
    int nslots = -1;
    cres_result res = cres__sched_read(r, "PE_HOSTFILE", l, err);
    (void)options;
    if (res == CRES_ERR_NOT_FOUND)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "sge: PE_HOSTFILE is not set%s (submit with qsub -pe)",
                          cres__env_set(r, "JOB_ID") ? ", though JOB_ID is" : "");
    if (res == CRES_OK) res = cres__env_int(r, "NSLOTS", 1, INT_MAX, &nslots, err);
    if (res == CRES_OK && nslots >= 0 && nslots != l->ntasks)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "sge: NSLOTS=%d but PE_HOSTFILE has %d slots",
                         nslots, l->ntasks);
    if (res == CRES_OK) res = cres__env_agrees(r, "NHOSTS", (int)l->nodes, "PE_HOSTFILE", err);
    if (res != CRES_OK) return res;
    if ((res = cres__sched_mpi(r, l, err)) != CRES_ERR_NOT_FOUND) return res;
    return cres__sched_script(
        r, l,
        "no rank variable (OMPI_COMM_WORLD_RANK, PMI_RANK or another MPI rank): "
        "the job script");
}

CRES__HPC_CREATE(cres_sge_resolver_create, cres__sge_vtable, cres_sge_options, cres__sge_layout,
                 cres__sge_gpus)
#else
CRES__LEFT_OUT(cres_sge_resolver_create, cres_sge_options, "sge", "CLUSTER_RESOLVER_NO_SGE")
#endif /* CLUSTER_RESOLVER_NO_SGE */

#ifndef CLUSTER_RESOLVER_NO_FLUX
CRES__BYTE_ALIGNED static const char cres__flux_vtable_name[] = "flux";
static const cres_resolver_vtable cres__flux_vtable = {
    cres__flux_vtable_name, cres__hpc_resolve, NULL, cres__hpc_accelerators, cres__hpc_destroy,
    cres__hpc_devices, NULL};

/* The Flux shell's gpu-affinity option sets CUDA_VISIBLE_DEVICES to the node's GPUs ("on",
   the default) or to each task's ("per-task", "map:"; flux-core src/shell/gpubind.c), and
   no variable tells a task which. */
CRES__PRIVATE cres_result cres__flux_gpus(const cres_resolver *r, cres__gpu_word *said,
                                          cres_error *err) {
    (void)r, (void)err;
    said->unsaid = "Flux does not tell a task its gpu-affinity (the node's GPUs, or its own)";
    return CRES_OK;
}

/* FLUX_JOB_SIZE tasks on the hostfile's nodes: size / nnodes each when it divides (flux run
   -N n -n k*n), else the slots filled in order, which must use every node (Flux runs a task
   on each). */
CRES__PRIVATE cres_result cres__flux_fill(cres__layout *l, int size, int nnodes, cres_error *err) {
    cres_result res;
    if (nnodes >= 0 && size % nnodes == 0) {
        size_t i;
        for (i = 0; i < l->nodes; i++) l->tasks[i] = size / nnodes;
    }
    res = cres__mpi_fill(l, size, "FLUX_JOB_SIZE", 0, "flux", err);
    if (res == CRES_OK && nnodes >= 0 && (size_t)nnodes != l->nodes)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "flux: FLUX_JOB_NNODES=%d, but the hostfile's slots hold the "
                         "FLUX_JOB_SIZE=%d tasks on %zu nodes",
                         nnodes, size, l->nodes);
    return res;
}

/* The own task of a Flux job: FLUX_TASK_RANK of FLUX_JOB_SIZE (the shell's PMI-1 names them
   too), FLUX_TASK_LOCAL_ID checked against the placement. */
CRES__PRIVATE cres_result cres__flux_task(const cres_resolver *r, cres__layout *l, int size,
                                          cres_error *err) {
    cres_result res = cres__env_need(r, "FLUX_TASK_RANK", 0, size - 1, &l->rank, err);
    if (res == CRES_OK) res = cres__env_agrees(r, "PMI_SIZE", size, "FLUX_JOB_SIZE", err);
    if (res == CRES_OK) res = cres__env_agrees(r, "PMI_RANK", l->rank, "FLUX_TASK_RANK", err);
    if (res == CRES_OK)
        res = cres__env_int(r, "FLUX_TASK_LOCAL_ID", 0, INT_MAX, &l->own_local, err);
    l->said_by[0] = "FLUX_TASK_LOCAL_ID";
    return res;
}

/* The hosts of a Flux hostfile (text becomes the layout's): a hostfile's lines, or what `flux
   hostlist` prints, one line of an RFC 29 hostlist ("fluke[0-3]"; with -e the hosts
   blank-separated), Slurm's grammar: a file of one line without '=', ':' or '#' is one, a
   slot a host. */
CRES__PRIVATE cres_result cres__flux_hosts(const cres_allocator *a, char *text, cres__layout *l,
                                           cres_error *err) {
    size_t n = strlen(text), i;
    cres_result res;
    l->from = "the hostfile";
    while (n && strchr(" \t\r\n", text[n - 1])) n--;
    if (!n || memchr(text, '\n', n) || strpbrk(text, "=:#"))
        return cres__hostfile_parse(a, text, l, "flux", err);
    text[n] = '\0';
    res = cres__layout_hostlist(a, l, text, "flux", err);
    cres__free(a, text);
    if (res != CRES_OK) return cres__wrap(err, res, CRES_ERR_ENVIRONMENT, "flux: ");
    for (i = 0; i < l->nodes; i++) l->tasks[i] = 1;
    return cres__layout_unique(a, l, "flux", err);
}

/* Flux names no hosts to its tasks (FLUX_TASK_RANK, FLUX_JOB_SIZE, FLUX_TASK_LOCAL_ID,
   FLUX_JOB_NNODES): they come from options.hostfile (`flux hostlist`'s line, hosts one per
   line, or "host slots=N" / "host:N"), never guessed. Without FLUX_TASK_RANK, in a job
   (FLUX_JOB_ID) or an allocation (FLUX_ENCLOSING_ID, which a `flux batch` script and a `flux
   alloc` shell get in place of the job's variables: flux-core src/broker/runat.c), the
   hostfile is the allocation and no task is this process's. */
CRES__PRIVATE cres_result cres__flux_layout(const cres_resolver *r, const void *options,
                                            cres__layout *l, cres_error *err) {
    const cres_flux_options *o = (const cres_flux_options *)options;
    static const char *const need[] = {"FLUX_TASK_RANK", "FLUX_JOB_SIZE", NULL};
    const char *job = cres__env_set(r, "FLUX_TASK_RANK")
                          ? NULL
                          : cres__env_any(r, "FLUX_JOB_ID\0FLUX_ENCLOSING_ID\0");
    int nnodes = -1, size = 0;
    char *text;
    cres_result res = job ? CRES_OK : cres__env_require(r, need, err);
    if (res == CRES_OK && !o->hostfile)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "flux: Flux tells %s no hosts; pass the job's hosts with "
                         "options.hostfile (--hostfile; `flux hostlist -e -d '\\n'`)",
                         job ? "a job script or an allocation's shell" : "a task");
    if (res == CRES_OK)
        res = job ? cres__env_int(r, "FLUX_JOB_SIZE", 1, CRES_MAX_HOSTLIST_HOSTS, &size, err)
                  : cres__env_need(r, "FLUX_JOB_SIZE", 1, CRES_MAX_HOSTLIST_HOSTS, &size, err);
    if (res == CRES_OK && !job) res = cres__flux_task(r, l, size, err);
    if (res == CRES_OK) res = cres__env_int(r, "FLUX_JOB_NNODES", 1, INT_MAX, &nnodes, err);
    if (res == CRES_OK && size && nnodes > size) /* flux run -N3 -n1 is refused: one a node */
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "flux: FLUX_JOB_NNODES=%d nodes for FLUX_JOB_SIZE=%d tasks", nnodes, size);
    if (res == CRES_OK && (res = cres__read_small_file(r, o->hostfile, CRES_MAX_DOCUMENT_BYTES,
                                                       &text, err)) == CRES_OK) {
        res = cres__flux_hosts(&r->config.allocator, text, l, err);
        if (res == CRES_OK && nnodes >= 0 && (size_t)nnodes != l->nodes)
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "flux: FLUX_JOB_NNODES=%d but the hostfile names %zu hosts", nnodes,
                             l->nodes);
        if (res != CRES_OK && res != CRES_ERR_OUT_OF_MEMORY && err)
            cres__name_source(err, "flux", "hostfile", o->hostfile);
    }
    if (res == CRES_OK && !size) /* an allocation without its job's size: the file's slots */
        res = cres__layout_total(l, "flux", err);
    else if (res == CRES_OK)
        res = cres__flux_fill(l, size, nnodes, err);
    if (res == CRES_OK && job)
        res = cres__sched_script(r, l,
                                 strcmp(job, "FLUX_JOB_ID") == 0
                                     ? "no FLUX_TASK_RANK, only FLUX_JOB_ID: not one of the job's "
                                       "tasks"
                                     : "no FLUX_TASK_RANK, only FLUX_ENCLOSING_ID: a flux batch "
                                       "script or a flux alloc shell");
    return res;
}

CRES__HPC_CREATE(cres_flux_resolver_create, cres__flux_vtable, cres_flux_options, cres__flux_layout,
                 cres__flux_gpus)
#else
CRES__LEFT_OUT(cres_flux_resolver_create, cres_flux_options, "flux", "CLUSTER_RESOLVER_NO_FLUX")
#endif /* CLUSTER_RESOLVER_NO_FLUX */


/* ////////////////////////////////////////////////////////////////////////////////////////
   SageMaker: the hosts of a training job                                      >>sagemaker */

#ifndef CLUSTER_RESOLVER_NO_SAGEMAKER

/* Where the resource config's keys are in cres__sm_source.pick. */
enum { CRES__SM_HOSTS, CRES__SM_CURRENT, CRES__SM_GROUPS, CRES__SM_GROUP, CRES__SM_KEYS };

/* What was read, and from where: the resource config only for what the options and the
   environment leave out (options first, then the environment, then the file). */
typedef struct cres__sm_source {
    cres__json file;         /* the resource config, parsed, when it was read */
    int have_file;           /* it was */
    int pick[CRES__SM_KEYS]; /* its keys' value tokens, -1 = absent */
    cres__json text;         /* the hosts list given as text (options.hosts, SM_HOSTS) */
    const cres__json *doc;   /* the document holding the hosts list: &text or &file */
    int hosts;               /* its list token; -1 = no list (allowed with instance groups) */
    char *current;           /* the current host (owned) */
    const char *hosts_what, *current_what;
    /* with options.instance_groups: */
    cres__json gtext;       /* the groups given as text (options, SM_INSTANCE_GROUPS_DICT) */
    const cres__json *gdoc; /* &gtext (an object: name -> group) or &file (a list) */
    int groups;             /* the object's or list's token */
    char *group;            /* the current group when told (owned), else NULL */
    const char *groups_what, *group_what;
} cres__sm_source;

/* Options that only mean something together. */
CRES__PRIVATE cres_result cres__sm_check_options(const cres_sagemaker_options *o, cres_error *err) {
    if (o->instance_groups && o->job_name)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "sagemaker: job_name and instance_groups exclude each other (the "
                          "groups name the jobs)");
    if (!o->instance_groups && (o->instance_groups_dict || o->current_instance_group))
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "sagemaker: options.%s is read only with options.instance_groups",
                          o->instance_groups_dict ? "instance_groups_dict"
                                                  : "current_instance_group");
    return CRES_OK;
}

/* Reads and parses the resource config; `missing` names the variable that sent us there. */
CRES__PRIVATE cres_result cres__sm_file(const cres_resolver *r, const char *path,
                                        const char *missing, char **file, cres__sm_source *src,
                                        cres_error *err) {
    static const char *const keys[CRES__SM_KEYS] = {"hosts", "current_host", "instance_groups",
                                                    "current_group_name"};
    char q[CRES__QUOTE_SIZE];
    cres_result res = cres__read_small_file(r, path, CRES_MAX_DOCUMENT_BYTES, file, err);
    if (res == CRES_ERR_OUT_OF_MEMORY || res == CRES_ERR_LIMIT) return res;
    if (res != CRES_OK && !missing) /* named by the caller, so read whatever else is set */
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "sagemaker: options.resource_config %s cannot be read",
                          cres__quote_str(q, sizeof q, path));
    if (res != CRES_OK)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "sagemaker: %s is not set and %s cannot be read: not a SageMaker "
                          "training job",
                          missing, cres__quote_str(q, sizeof q, path));
    if ((res = cres__json_parse(&src->file, *file, strlen(*file), &r->config.allocator, path,
                                CRES_ERR_ENVIRONMENT, err)) != CRES_OK)
        return res;
    src->have_file = 1;
    cres__json_pick(&src->file, 0, keys, src->pick, CRES__SM_KEYS);
    return CRES_OK;
}

/* Parses a JSON text an option or a variable gave; it must open with `open`. */
CRES__PRIVATE cres_result cres__sm_parse(const cres_resolver *r, cres__json *d, const char *text,
                                         const char *what, char open, const char *shape,
                                         cres_error *err) {
    const char *first = text + strspn(text, " \t\r\n");
    cres_result res;
    if (!*first) return cres__fail(err, CRES_ERR_ENVIRONMENT, "sagemaker: %s is empty", what);
    if (*first != open)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "sagemaker: %s must be %s", what, shape);
    res = cres__json_parse_document(d, text, strlen(text), &r->config.allocator, what,
                                    CRES_ERR_ENVIRONMENT, err);
    return res == CRES_OK ? res : cres__wrap(err, res, CRES_OK, "sagemaker: ");
}

/* A string of the resource config, copied: key `k` of src->pick, named for messages. */
CRES__PRIVATE cres_result cres__sm_file_string(const cres__sm_source *src, int k, const char *key,
                                               const char *path, char **out, cres_error *err) {
    char q[CRES__QUOTE_SIZE];
    int ok;
    if (!cres__json_is(&src->file, src->pick[k], JSMN_STRING))
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "sagemaker: %s has no \"%s\" string",
                          cres__quote_str(q, sizeof q, path), key);
    if ((ok = cres__json_strdup(&src->file, src->pick[k], out)) == 0)
        return cres__oom(err, "sagemaker");
    if (ok < 0)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "sagemaker: \"%s\" holds a NUL character",
                          key);
    return CRES_OK;
}

/* The hosts list: options.hosts, else $SM_HOSTS, else the file's "hosts" (optional: with
   instance groups it is only checked against them). */
CRES__PRIVATE cres_result cres__sm_hosts_source(const cres_resolver *r, const char *hosts,
                                                int optional, cres__sm_source *src,
                                                cres_error *err) {
    cres_result res;
    if (hosts) {
        res = cres__sm_parse(r, &src->text, hosts, src->hosts_what, '[',
                             "a JSON list of host names", err);
        if (res != CRES_OK) return res;
        src->doc = &src->text;
        src->hosts = 0;
    } else if (src->have_file) {
        src->hosts_what = "resource config \"hosts\"";
        src->doc = &src->file;
        src->hosts = src->pick[CRES__SM_HOSTS];
        if (optional && src->hosts < 0) return CRES_OK;
    } else {
        return CRES_OK; /* not needed, so the file was not read */
    }
    if (!cres__json_is(src->doc, src->hosts, JSMN_ARRAY))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "sagemaker: %s must be a JSON list of host names", src->hosts_what);
    return CRES_OK;
}

/* The groups (options.instance_groups_dict, else $SM_INSTANCE_GROUPS_DICT, else the file's
   "instance_groups") and the current group when told (options.current_instance_group, else
   $SM_CURRENT_INSTANCE_GROUP, else the file's "current_group_name"). */
CRES__PRIVATE cres_result cres__sm_groups_source(const cres_resolver *r,
                                                 const cres_sagemaker_options *o,
                                                 const char *groups, const char *path,
                                                 cres__sm_source *src, cres_error *err) {
    const char *group = o->current_instance_group
                            ? o->current_instance_group
                            : cres_resolver_getenv(r, "SM_CURRENT_INSTANCE_GROUP");
    cres_result res;
    src->group_what =
        o->current_instance_group ? "options.current_instance_group" : "SM_CURRENT_INSTANCE_GROUP";
    if (groups) {
        res = cres__sm_parse(r, &src->gtext, groups, src->groups_what, '{',
                             "a JSON object of instance groups by name", err);
        if (res != CRES_OK) return res;
        src->gdoc = &src->gtext;
        src->groups = 0;
    } else {
        src->groups_what = "resource config \"instance_groups\"";
        src->gdoc = &src->file;
        src->groups = src->pick[CRES__SM_GROUPS];
        if (!cres__json_is(&src->file, src->groups, JSMN_ARRAY))
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "sagemaker: %s must be a JSON list of instance groups",
                              src->groups_what);
    }
    if (group) {
        if (!*group)
            return cres__fail(err, CRES_ERR_ENVIRONMENT, "sagemaker: %s is empty", src->group_what);
        if (!(src->group = cres__strdup(&r->config.allocator, group)))
            return cres__oom(err, "sagemaker");
    } else if (src->have_file && src->pick[CRES__SM_GROUP] >= 0) {
        src->group_what = "resource config \"current_group_name\"";
        return cres__sm_file_string(src, CRES__SM_GROUP, "current_group_name", path, &src->group,
                                    err);
    }
    return CRES_OK;
}

/* Reads what the options and the environment give, and the resource config file for the
   rest: the hosts list and the current host; with instance groups, the groups too. */
CRES__PRIVATE cres_result cres__sm_read(const cres_resolver *r, const cres_sagemaker_options *o,
                                        char **file, cres__sm_source *src, cres_error *err) {
    const cres_allocator *a = &r->config.allocator;
    const char *hosts = o->hosts ? o->hosts : cres_resolver_getenv(r, "SM_HOSTS");
    const char *current =
        o->current_host ? o->current_host : cres_resolver_getenv(r, "SM_CURRENT_HOST");
    const char *path = o->resource_config ? o->resource_config : CRES__SM_RESOURCE_CONFIG;
    const char *groups = NULL;
    cres_result res;
    src->hosts_what = o->hosts ? "options.hosts" : "SM_HOSTS";
    src->current_what = o->current_host ? "options.current_host" : "SM_CURRENT_HOST";
    if (o->instance_groups) {
        groups = o->instance_groups_dict ? o->instance_groups_dict
                                         : cres_resolver_getenv(r, "SM_INSTANCE_GROUPS_DICT");
        src->groups_what =
            o->instance_groups_dict ? "options.instance_groups_dict" : "SM_INSTANCE_GROUPS_DICT";
    }
    /* The file is read when something is missing, and always when the caller names it: a
       file given is checked against the variables, never passed over. */
    if (o->resource_config || (o->instance_groups ? !groups || !current : !hosts || !current)) {
        const char *missing = o->instance_groups && !groups   ? "SM_INSTANCE_GROUPS_DICT"
                              : !o->instance_groups && !hosts ? "SM_HOSTS"
                              : !current                      ? "SM_CURRENT_HOST"
                                                              : NULL;
        if ((res = cres__sm_file(r, path, missing, file, src, err)) != CRES_OK) return res;
    }
    if (current) {
        if (!(src->current = cres__strdup(a, current))) return cres__oom(err, "sagemaker");
    } else {
        src->current_what = "resource config \"current_host\"";
        res = cres__sm_file_string(src, CRES__SM_CURRENT, "current_host", path, &src->current, err);
        if (res != CRES_OK) return res;
    }
    if ((res = cres__sm_hosts_source(r, hosts, o->instance_groups, src, err)) != CRES_OK)
        return res;
    return o->instance_groups ? cres__sm_groups_source(r, o, groups, path, src, err) : CRES_OK;
}

CRES__PRIVATE int cres__cmp_natural_ptr(const void *x, const void *y) {
    return cres__natural_cmp(*(const char *const *)x, *(const char *const *)y);
}

CRES__PRIVATE void cres__sm_names_free(const cres_allocator *a, char **names, size_t n) {
    size_t i;
    for (i = 0; names && i < n; i++) cres__free(a, names[i]);
    cres__free(a, names);
}

/* The host names of list token `list`, in natural order ("algo-2" before "algo-10"),
   checked: names, no repeats. *out gets the array (one per item, free it with
   cres__sm_names_free) even on failure. */
CRES__PRIVATE cres_result cres__sm_names(const cres_allocator *a, const cres__json *d, int list,
                                         const char *what, char ***out, cres_error *err) {
    size_t i, n = (size_t)d->t[list].size;
    int t = list + 1;
    char **names, q[CRES__QUOTE_SIZE];
    if (!(*out = names = (char **)cres__alloc(a, (n ? n : 1) * sizeof *names)))
        return cres__oom(err, "sagemaker");
    memset(names, 0, (n ? n : 1) * sizeof *names);
    for (i = 0; i < n; i++, t = cres__json_next(d, t)) {
        int ok;
        if (d->t[t].type != JSMN_STRING)
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "sagemaker: %s: item %zu is %s, not a host name", what, i,
                              cres__json_quote(d, t, q, sizeof q));
        if ((ok = cres__json_strdup(d, t, &names[i])) == 0) return cres__oom(err, "sagemaker");
        if (ok < 0 || !*names[i] || strlen(names[i]) > CRES_MAX_NAME_LENGTH ||
            cres__bad_text(names[i], 1))
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "sagemaker: %s: item %zu, %s, is not a host name", what, i,
                              cres__json_quote(d, t, q, sizeof q));
    }
    if (n) qsort(names, n, sizeof *names, cres__cmp_natural_ptr);
    for (i = 1; i < n; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            return cres__fail(err, CRES_ERR_ENVIRONMENT, "sagemaker: %s names %s twice", what,
                              cres__quote_str(q, sizeof q, names[i]));
    return CRES_OK;
}

/* Adds job `job` to the spec: task i at "names[i]:port" (an empty list: an empty job). */
CRES__PRIVATE cres_result cres__sm_add_job(cres_cluster_spec *spec, const char *job,
                                           char *const *names, size_t n, int port, const char *what,
                                           cres_error *err) {
    size_t i;
    cres_result res = n ? CRES_OK : cres_spec_add_job(spec, job, NULL, 0, err);
    for (i = 0; i < n && res == CRES_OK; i++) {
        char address[CRES_MAX_NAME_LENGTH + 16], q[CRES__QUOTE_SIZE];
        cres__writer aw;
        cres__start(&aw, address, sizeof address, NULL);
        if (!cres__put_host_port(&aw, names[i], port) || cres__finish(&aw, NULL, NULL) != CRES_OK)
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "sagemaker: %s: %s is not a host name or IPv6 address", what,
                             cres__quote_str(q, sizeof q, names[i]));
        else
            res = cres_spec_add_task(spec, job, (int)i, address, err);
    }
    return res;
}

/* SageMaker writes the hosts and the current host both to the environment and to the
   resource config: when the file was read for one, the other must match what was used. */
CRES__PRIVATE cres_result cres__sm_file_agrees(const cres_allocator *a, const cres__sm_source *src,
                                               char *const *names, size_t n, cres_error *err) {
    char **file = NULL, q[CRES__QUOTE_SIZE], qf[CRES__QUOTE_SIZE];
    const char *what = "resource config \"hosts\"";
    int list = src->pick[CRES__SM_HOSTS], current = src->pick[CRES__SM_CURRENT];
    size_t i, m;
    cres_result res = CRES_OK;
    if (!src->have_file) return CRES_OK;
    if (src->doc != &src->file && cres__json_is(&src->file, list, JSMN_ARRAY)) {
        m = (size_t)src->file.t[list].size;
        res = cres__sm_names(a, &src->file, list, what, &file, err);
        for (i = 0; res == CRES_OK && i < (m < n ? m : n); i++)
            if (strcmp(file[i], names[i]) != 0) break;
        if (res == CRES_OK && (m != n || i < n))
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "sagemaker: %s names %zu hosts and %s %zu, not the same%s%s",
                             src->hosts_what, n, what, m, i < n && i < m ? ": " : "",
                             i < n && i < m ? cres__quote_str(q, sizeof q, names[i]) : "");
        cres__sm_names_free(a, file, m);
    }
    if (res == CRES_OK && strcmp(src->current_what, "resource config \"current_host\"") != 0 &&
        cres__json_is(&src->file, current, JSMN_STRING) &&
        !cres__json_eq(&src->file, current, src->current))
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "sagemaker: %s=%s but resource config \"current_host\" is %s",
                         src->current_what, cres__quote_str(q, sizeof q, src->current),
                         cres__json_quote(&src->file, current, qf, sizeof qf));
    return res;
}

/* Builds the spec from the source: one job, "host:port" per host; finds the own task. */
CRES__PRIVATE cres_result cres__sm_build(cres__hpc *h, const cres__sm_source *src,
                                         const cres_sagemaker_options *o, int port,
                                         cres_error *err) {
    const cres_allocator *a = &h->base.config.allocator;
    const char *job = o->job_name ? o->job_name : "worker";
    size_t i, n = (size_t)src->doc->t[src->hosts].size, own = n;
    char **names = NULL, q[CRES__QUOTE_SIZE];
    cres_result res = cres__sm_names(a, src->doc, src->hosts, src->hosts_what, &names, err);
    if (res == CRES_OK) res = cres__sm_file_agrees(a, src, names, n, err);
    if (res == CRES_OK) res = cres_spec_create(a, &h->spec, err);
    if (res == CRES_OK) res = cres__sm_add_job(h->spec, job, names, n, port, src->hosts_what, err);
    for (i = 0; i < n && res == CRES_OK; i++)
        if (strcmp(names[i], src->current) == 0) own = i;
    cres__sm_names_free(a, names, n);
    if (res == CRES_OK && own == n)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "sagemaker: %s %s is not one of the %zu hosts of %s", src->current_what,
                          cres__quote_str(q, sizeof q, src->current), n, src->hosts_what);
    if (res == CRES_OK) res = cres_set_detected_task(&h->base, job, (int)own, err);
    return res;
}

/* ----------------------------------------------------------------------------------------
   Heterogeneous clusters: a job per instance group (options.instance_groups) */

/* One instance group: a job named by its instance_group_name, hosts in natural order. */
typedef struct cres__sm_group {
    char *name;   /* owned */
    char **hosts; /* owned, count entries */
    size_t count;
} cres__sm_group;

CRES__PRIVATE void cres__sm_groups_free(const cres_allocator *a, cres__sm_group *g, size_t n) {
    size_t i;
    for (i = 0; g && i < n; i++) {
        cres__free(a, g[i].name);
        cres__sm_names_free(a, g[i].hosts, g[i].count);
    }
    cres__free(a, g);
}

/* The group's name must be a job name; `where` says which group this is. */
CRES__PRIVATE cres_result cres__sm_group_name(const char *name, const char *where,
                                              cres_error *err) {
    char q[CRES__QUOTE_SIZE];
    if (!*name)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "sagemaker: %s: the instance_group_name is empty", where);
    if (cres__check_job_name(name, NULL) != CRES_OK)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "sagemaker: %s: instance_group_name %s cannot name a job (more than "
                          "%d bytes, a control character or invalid UTF-8)",
                          where, cres__quote_str(q, sizeof q, name), CRES_MAX_NAME_LENGTH);
    return CRES_OK;
}

/* SM_INSTANCE_GROUPS_DICT's key and its group's instance_group_name must agree. */
CRES__PRIVATE cres_result cres__sm_group_key(const cres__json *d, int name_at, const char *key,
                                             const char *where, cres_error *err) {
    char *inner = NULL, q[CRES__QUOTE_SIZE];
    int ok, same;
    if ((ok = cres__json_strdup(d, name_at, &inner)) == 0) return cres__oom(err, "sagemaker");
    same = ok > 0 && strcmp(inner, key) == 0;
    cres__free(d->a, inner);
    if (same) return CRES_OK;
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "sagemaker: %s: \"instance_group_name\" is %s, not the group's key", where,
                      cres__json_quote(d, name_at, q, sizeof q));
}

/* The name of group `value` (with `key` its SM_INSTANCE_GROUPS_DICT key, else -1 for an item
   of the file's list) and its "hosts" list token. */
CRES__PRIVATE cres_result cres__sm_group_head(const cres__sm_source *src, int key, int value,
                                              size_t item, cres__sm_group *g, int *hosts,
                                              cres_error *err) {
    const cres__json *d = src->gdoc;
    char where[CRES__QUOTE_SIZE + 128], q[CRES__QUOTE_SIZE];
    int name_at = -1, ok;
    cres_result res;
    if (key >= 0)
        snprintf(where, sizeof where, "%s: group %s", src->groups_what,
                 cres__json_quote(d, key, q, sizeof q));
    else
        snprintf(where, sizeof where, "%s: item %zu", src->groups_what, item);
    if (!cres__json_is(d, value, JSMN_OBJECT))
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "sagemaker: %s is %s, not an object", where,
                          cres__json_quote(d, value, q, sizeof q));
    res = cres__json_member(d, value, "instance_group_name", &name_at, where, CRES_ERR_ENVIRONMENT,
                            err);
    if (res == CRES_OK)
        res = cres__json_member(d, value, "hosts", hosts, where, CRES_ERR_ENVIRONMENT, err);
    if (res != CRES_OK) return cres__wrap(err, res, CRES_OK, "sagemaker: ");
    if (name_at >= 0 ? !cres__json_is(d, name_at, JSMN_STRING) : key < 0)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "sagemaker: %s has no \"instance_group_name\" string", where);
    if ((ok = cres__json_strdup(d, key >= 0 ? key : name_at, &g->name)) == 0)
        return cres__oom(err, "sagemaker");
    if (ok < 0)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "sagemaker: %s: the instance_group_name holds a NUL character", where);
    if (key >= 0 && name_at >= 0 &&
        (res = cres__sm_group_key(d, name_at, g->name, where, err)) != CRES_OK)
        return res;
    return cres__sm_group_name(g->name, where, err);
}

/* Reads one group: its name and its hosts (at least one, checked as the hosts list is). */
CRES__PRIVATE cres_result cres__sm_group_read(const cres_allocator *a, const cres__sm_source *src,
                                              int key, int value, size_t item, cres__sm_group *g,
                                              cres_error *err) {
    const cres__json *d = src->gdoc;
    char where[CRES__QUOTE_SIZE + 128], q[CRES__QUOTE_SIZE];
    int hosts = -1;
    cres_result res = cres__sm_group_head(src, key, value, item, g, &hosts, err);
    if (res != CRES_OK) return res;
    snprintf(where, sizeof where, "%s: group %s: \"hosts\"", src->groups_what,
             cres__quote_str(q, sizeof q, g->name));
    if (!cres__json_is(d, hosts, JSMN_ARRAY))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "sagemaker: %s must be a JSON list of host names", where);
    if (d->t[hosts].size == 0) /* SageMaker starts at least one instance per group */
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "sagemaker: %s is empty", where);
    g->count = (size_t)d->t[hosts].size;
    return cres__sm_names(a, d, hosts, where, &g->hosts, err);
}

CRES__PRIVATE int cres__cmp_sm_group(const void *x, const void *y) {
    return strcmp(((const cres__sm_group *)x)->name, ((const cres__sm_group *)y)->name);
}

/* Every group, sorted by name (the spec's order); a name given twice is an error. */
CRES__PRIVATE cres_result cres__sm_groups_read(const cres_allocator *a, const cres__sm_source *src,
                                               cres__sm_group **out, size_t *out_n,
                                               cres_error *err) {
    const cres__json *d = src->gdoc;
    size_t i, n = (size_t)d->t[src->groups].size;
    int t = src->groups + 1, dict = d->t[src->groups].type == JSMN_OBJECT;
    char q[CRES__QUOTE_SIZE];
    cres_result res = CRES_OK;
    *out_n = 0;
    if (!n)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "sagemaker: %s names no instance group",
                          src->groups_what);
    if (!(*out = (cres__sm_group *)cres__alloc(a, n * sizeof **out)))
        return cres__oom(err, "sagemaker");
    memset(*out, 0, n * sizeof **out);
    *out_n = n;
    for (i = 0; i < n && res == CRES_OK; i++) {
        int value = dict ? t + 1 : t;
        res = cres__sm_group_read(a, src, dict ? t : -1, value, i, &(*out)[i], err);
        t = cres__json_next(d, value);
    }
    if (res != CRES_OK) return res;
    qsort(*out, n, sizeof **out, cres__cmp_sm_group);
    for (i = 1; i < n; i++)
        if (strcmp((*out)[i - 1].name, (*out)[i].name) == 0)
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "sagemaker: %s names instance group %s twice", src->groups_what,
                              cres__quote_str(q, sizeof q, (*out)[i].name));
    return CRES_OK;
}

CRES__PRIVATE int cres__cmp_name_at_natural(const void *x, const void *y) {
    const cres__name_at *a = (const cres__name_at *)x, *b = (const cres__name_at *)y;
    int c = cres__natural_cmp(a->name, b->name);
    return c ? c : (a->at < b->at ? -1 : a->at > b->at);
}

/* The groups' hosts, all sorted (`at` = the group), against the flat list (natural order):
   the same hosts, when the flat list is known. */
CRES__PRIVATE cres_result cres__sm_groups_flat(const cres__sm_source *src, const cres__sm_group *g,
                                               const cres__name_at *all, size_t total,
                                               char *const *flat, size_t flat_n, cres_error *err) {
    size_t i = 0, j = 0;
    char q[CRES__QUOTE_SIZE], qg[CRES__QUOTE_SIZE];
    while (i < total || j < flat_n) {
        int c = i == total ? 1 : j == flat_n ? -1 : cres__natural_cmp(all[i].name, flat[j]);
        if (c < 0)
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "sagemaker: %s: group %s has host %s, which %s does not list",
                              src->groups_what, cres__quote_str(qg, sizeof qg, g[all[i].at].name),
                              cres__quote_str(q, sizeof q, all[i].name), src->hosts_what);
        if (c > 0)
            return cres__fail(
                err, CRES_ERR_ENVIRONMENT, "sagemaker: %s lists host %s, which no group of %s has",
                src->hosts_what, cres__quote_str(q, sizeof q, flat[j]), src->groups_what);
        i++;
        j++;
    }
    return CRES_OK;
}

/* No host in two groups; the union of the groups is the flat list when that is known. */
CRES__PRIVATE cres_result cres__sm_groups_union(const cres_allocator *a, const cres__sm_source *src,
                                                const cres__sm_group *g, size_t n,
                                                char *const *flat, size_t flat_n, cres_error *err) {
    size_t i, k, total = 0;
    cres__name_at *all;
    cres_result res = CRES_OK;
    char q[CRES__QUOTE_SIZE], q1[CRES__QUOTE_SIZE], q2[CRES__QUOTE_SIZE];
    for (i = 0; i < n; i++) total += g[i].count;
    if (!(all = (cres__name_at *)cres__alloc(a, total * sizeof *all)))
        return cres__oom(err, "sagemaker");
    for (i = total = 0; i < n; i++) {
        for (k = 0; k < g[i].count; k++, total++) {
            all[total].name = g[i].hosts[k];
            all[total].at = i;
        }
    }
    qsort(all, total, sizeof *all, cres__cmp_name_at_natural);
    for (i = 1; i < total && res == CRES_OK; i++) { /* no repeats within a group: read so */
        const char *x = g[all[i - 1].at].name, *y = g[all[i].at].name;
        if (strcmp(all[i - 1].name, all[i].name) == 0)
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "sagemaker: %s puts host %s in two groups, %s and %s",
                             src->groups_what, cres__quote_str(q, sizeof q, all[i].name),
                             cres__quote_str(q1, sizeof q1, x), cres__quote_str(q2, sizeof q2, y));
    }
    if (res == CRES_OK && flat) res = cres__sm_groups_flat(src, g, all, total, flat, flat_n, err);
    cres__free(a, all);
    return res;
}

/* The current host's group and index there; the current group, when told, must agree. */
CRES__PRIVATE cres_result cres__sm_groups_own(const cres__sm_source *src, const cres__sm_group *g,
                                              size_t n, size_t *own, size_t *own_index,
                                              cres_error *err) {
    char q[CRES__QUOTE_SIZE], qg[CRES__QUOTE_SIZE], qt[CRES__QUOTE_SIZE];
    size_t i, k = 0;
    for (i = 0; i < n; i++) {
        for (k = 0; k < g[i].count && strcmp(g[i].hosts[k], src->current) != 0; k++) {}
        if (k < g[i].count) break;
    }
    if (i == n)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "sagemaker: %s %s is in no group of %s",
                          src->current_what, cres__quote_str(q, sizeof q, src->current),
                          src->groups_what);
    *own = i;
    *own_index = k;
    if (!src->group || strcmp(src->group, g[i].name) == 0) return CRES_OK;
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "sagemaker: %s is %s, but %s puts %s %s in group %s", src->group_what,
                      cres__quote_str(qt, sizeof qt, src->group), src->groups_what,
                      src->current_what, cres__quote_str(q, sizeof q, src->current),
                      cres__quote_str(qg, sizeof qg, g[i].name));
}

/* Builds the spec with a job per instance group and finds the own task. */
CRES__PRIVATE cres_result cres__sm_build_groups(cres__hpc *h, const cres__sm_source *src, int port,
                                                cres_error *err) {
    const cres_allocator *a = &h->base.config.allocator;
    cres__sm_group *g = NULL;
    char **flat = NULL;
    size_t i, n = 0, flat_n = src->hosts >= 0 ? (size_t)src->doc->t[src->hosts].size : 0;
    size_t own = 0, own_index = 0;
    cres_result res = cres__sm_groups_read(a, src, &g, &n, err);
    if (res == CRES_OK && src->hosts >= 0)
        res = cres__sm_names(a, src->doc, src->hosts, src->hosts_what, &flat, err);
    if (res == CRES_OK) res = cres__sm_groups_union(a, src, g, n, flat, flat_n, err);
    if (res == CRES_OK) res = cres__sm_groups_own(src, g, n, &own, &own_index, err);
    if (res == CRES_OK) res = cres_spec_create(a, &h->spec, err);
    for (i = 0; i < n && res == CRES_OK; i++)
        res = cres__sm_add_job(h->spec, g[i].name, g[i].hosts, g[i].count, port, src->groups_what,
                               err);
    if (res == CRES_OK) res = cres_set_detected_task(&h->base, g[own].name, (int)own_index, err);
    cres__sm_names_free(a, flat, flat_n);
    cres__sm_groups_free(a, g, n);
    return res;
}

/* TF's SageMaker resolver answers master() as TF_CONFIG's does: "" for a single host. */
CRES__PRIVATE cres_result cres__sm_master(cres_resolver *r, const char *task_type, int task_id,
                                          const char *rpc_layer, char *buf, size_t cap,
                                          size_t *out_len, cres_error *err) {
    if (!task_type && task_id < 0 && cres__spec_is_local(((cres__hpc *)r)->spec))
        return cres__write_master("", NULL, buf, cap, out_len, err);
    return cres__master_of_task(r, task_type, task_id, rpc_layer, "", buf, cap, out_len, err);
}

CRES__BYTE_ALIGNED static const char cres__sagemaker_vtable_name[] = "sagemaker";
static const cres_resolver_vtable cres__sagemaker_vtable = {
    cres__sagemaker_vtable_name, cres__hpc_resolve, cres__sm_master, NULL, cres__hpc_destroy,
    NULL, NULL};

CRES_API cres_result cres_sagemaker_resolver_create(const cres_sagemaker_options *o,
                                                    cres_resolver **out, cres_error *err) {
    cres_sagemaker_options none;
    cres__sm_source src;
    cres_resolver *r;
    char *file = NULL;
    cres_result res;
    int port;
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "sagemaker: out is NULL");
    *out = NULL;
    if ((res = cres_resolver_new(sizeof(cres__hpc), &cres__sagemaker_vtable, o->config, &r, err)) !=
        CRES_OK)
        return res;
    memset(&src, 0, sizeof src);
    src.hosts = src.groups = -1;
    port = o->port ? o->port : 2223;
    res = cres__sm_check_options(o, err);
    if (res == CRES_OK && (port < 1 || port > 65535))
        res =
            cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "sagemaker: port %d is not a port", o->port);
    if (res == CRES_OK) res = cres__sm_read(r, o, &file, &src, err);
    if (res == CRES_OK)
        res = o->instance_groups ? cres__sm_build_groups((cres__hpc *)r, &src, port, err)
                                 : cres__sm_build((cres__hpc *)r, &src, o, port, err);
    if (res == CRES_OK) res = cres__apply_options(r, o->task_type, o->task_id, o->rpc_layer, err);
    cres__json_free(&src.file);
    cres__json_free(&src.text);
    cres__json_free(&src.gtext);
    cres__free(&r->config.allocator, src.current);
    cres__free(&r->config.allocator, src.group);
    cres__free(&r->config.allocator, file);
    return cres__created(r, res, out);
}
#else
CRES__LEFT_OUT(cres_sagemaker_resolver_create, cres_sagemaker_options, "sagemaker",
               "CLUSTER_RESOLVER_NO_SAGEMAKER")
#endif /* CLUSTER_RESOLVER_NO_SAGEMAKER */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Platforms that name every member: Vertex AI, SkyPilot, Volcano, LeaderWorkerSet
                                                                              >>platform */

#ifndef CLUSTER_RESOLVER_NO_VERTEX
/* All the tasks of a spec. */
CRES__PRIVATE size_t cres__spec_total(const cres_cluster_spec *s) {
    size_t i, n = 0;
    for (i = 0; i < s->count; i++) n += s->jobs[i].pub.tasks_count;
    return n;
}
#endif

#if !defined(CLUSTER_RESOLVER_NO_SKYPILOT) || !defined(CLUSTER_RESOLVER_NO_VOLCANO) || \
    !defined(CLUSTER_RESOLVER_NO_LWS)
/* A spec made once at create from hosts the variables name, a port each. */
typedef struct cres__hosts {
    cres_resolver base;
    cres_cluster_spec *spec;
    int gpus; /* per task; 0 = none said */
} cres__hosts;

CRES__PRIVATE cres_result cres__hosts_resolve(cres_resolver *r, cres_cluster_spec **out,
                                             cres_error *err) {
    return cres_spec_clone(((cres__hosts *)r)->spec, &r->config.allocator, out, err);
}

CRES__PRIVATE void cres__hosts_destroy(cres_resolver *r) {
    cres_spec_free(((cres__hosts *)r)->spec);
}

CRES__PRIVATE cres_result cres__hosts_accelerators(cres_resolver *r, const char *task_type,
                                                  int task_id, cres_accelerators *out,
                                                  cres_error *err) {
    const cres__hosts *h = (const cres__hosts *)r;
    (void)task_type, (void)task_id, (void)err;
    memset(out, 0, sizeof *out);
    if (h->gpus > 0) {
        strcpy(out->items[0].type, "GPU");
        out->items[0].count = h->gpus;
        out->count = 1;
    }
    return CRES_OK;
}

CRES__PRIVATE cres_result cres__hosts_new(const cres_resolver_vtable *vtable,
                                          const cres_config *config, int port, cres__hosts **h,
                                          cres_error *err) {
    cres_resolver *r;
    cres_result res;
    *h = NULL;
    if (port < 0 || port > 65535)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "%s: port %d is not 1 to 65535",
                          vtable->name, port);
    if ((res = cres_resolver_new(sizeof(cres__hosts), vtable, config, &r, err)) != CRES_OK)
        return res;
    res = cres_spec_create(&r->config.allocator, &((cres__hosts *)r)->spec, err);
    if (res != CRES_OK) cres_resolver_free(r);
    else *h = (cres__hosts *)r;
    return res;
}

/* Adds host (n bytes) as task `index` of `job` at port; `from` names the source. */
CRES__PRIVATE cres_result cres__hosts_add(cres__hosts *h, const char *job, int index,
                                          const char *host, size_t n, int port, const char *from,
                                          cres_error *err) {
    char name[CRES_MAX_NAME_LENGTH + 1], address[CRES_MAX_NAME_LENGTH + 16], q[CRES__QUOTE_SIZE];
    cres__writer w;
    size_t i;
    cres__quote(q, sizeof q, host, n);
    if (n == 0 || n > CRES_MAX_NAME_LENGTH)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s: host %d is %s", h->base.vtable->name,
                          from, index, n ? "too long" : "empty");
    memcpy(name, host, n);
    name[n] = '\0';
    cres__start(&w, address, sizeof address, NULL);
    if (strpbrk(name, ",;") || !cres__put_host_port(&w, name, port) ||
        cres__finish(&w, NULL, NULL) != CRES_OK)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s: %s is not a host name or address",
                          h->base.vtable->name, from, q);
    (void)i;
    return cres_spec_add_task(h->spec, job, index, address, err);
}

CRES__PRIVATE int cres__cmp_str_ptr(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* No address twice, in any job: sorted, so a million hosts take no time. */
CRES__PRIVATE cres_result cres__hosts_unique(cres__hosts *h, const char *from, cres_error *err) {
    const cres_allocator *a = &h->base.config.allocator;
    const char **all;
    size_t i, k, n = 0, total = 0;
    cres_result res = CRES_OK;
    char q[CRES__QUOTE_SIZE];
    for (i = 0; i < h->spec->count; i++) total += h->spec->jobs[i].pub.tasks_count;
    if (total < 2) return CRES_OK;
    if (!(all = (const char **)cres__alloc(a, total * sizeof *all)))
        return cres__oom(err, h->base.vtable->name);
    for (i = 0; i < h->spec->count; i++)
        for (k = 0; k < h->spec->jobs[i].pub.tasks_count; k++)
            all[n++] = h->spec->jobs[i].pub.tasks[k].address;
    qsort(all, n, sizeof *all, cres__cmp_str_ptr);
    for (i = 1; i < n && res == CRES_OK; i++)
        if (strcmp(all[i - 1], all[i]) == 0)
            res = cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s names %s twice",
                             h->base.vtable->name, from,
                             cres__quote(q, sizeof q, all[i], strcspn(all[i], ":[")));
    cres__free(a, (void *)all);
    return res;
}

/* Takes the own task and the options; frees the resolver on failure. */
CRES__PRIVATE cres_result cres__hosts_finish(cres__hosts *h, cres_result res, const char *job,
                                             int own, const char *task_type, int task_id,
                                             const char *rpc_layer, cres_resolver **out,
                                             cres_error *err) {
    if (res == CRES_OK && own >= 0) res = cres_set_detected_task(&h->base, job, own, err);
    if (res == CRES_OK) res = cres__apply_options(&h->base, task_type, task_id, rpc_layer, err);
    if (res != CRES_OK) {
        cres_resolver_free(&h->base);
        return res;
    }
    *out = &h->base;
    return CRES_OK;
}
#endif

#ifndef CLUSTER_RESOLVER_NO_VERTEX

/* Vertex AI's pools: 0 the primary replica, 1 the workers, 2 the parameter servers or the
   Reduction Server, 3 the evaluators (cloud.google.com/vertex-ai/docs/training/
   distributed-training). torch's and JAX's processes are pools 0 and 1: the launch counts
   those; a replica of pool 2 or 3 has no rank. */
CRES__PRIVATE cres_result cres__vertex_launch(cres_resolver *r, cres_launch_info *out,
                                              cres_error *err) {
    static const char *const pools[2] = {"workerpool0", "workerpool1"};
    const cres_cluster_spec *all = ((cres__simple *)r)->spec;
    cres_cluster_spec *ranked = NULL;
    size_t p, k;
    cres_result res = CRES_OK;
    if (!r->task_type || r->task_id < 0) return cres__launch_from_spec(r, out, err); /* says why */
    if (strcmp(r->task_type, pools[0]) != 0 && strcmp(r->task_type, pools[1]) != 0)
        return cres__fail(err, CRES_ERR_NOT_FOUND,
                          "vertex: CLUSTER_SPEC's task is in %.64s, whose replicas (parameter "
                          "servers, Reduction Server, evaluators) take no rank: pools 0 and 1 do",
                          r->task_type);
    res = cres_spec_create(&r->config.allocator, &ranked, err);
    for (p = 0; p < 2 && res == CRES_OK; p++) {
        const cres_job *j = cres_spec_job(all, pools[p]);
        for (k = 0; j && k < j->tasks_count && res == CRES_OK; k++)
            res = cres_spec_add_task(ranked, pools[p], j->tasks[k].index, j->tasks[k].address,
                                     err);
    }
    if (res == CRES_OK)
        res = cres_spec_launch_info(ranked, r->task_type, r->task_id, out, err);
    cres_spec_free(ranked);
    return res;
}

CRES__BYTE_ALIGNED static const char cres__vertex_vtable_name[] = "vertex";
static const cres_resolver_vtable cres__vertex_vtable = {
    cres__vertex_vtable_name, cres__simple_resolve, cres__tfconfig_master, NULL,
    cres__simple_destroy, NULL, cres__vertex_launch};

/* Vertex AI's CLUSTER_SPEC is TF_CONFIG's shape with worker pools for jobs
   (workerpool0..3) and a "job" member we do not need; outside TensorFlow it is the only
   description. Pools must be lists and the task one of them. */
CRES_API cres_result cres_vertex_resolver_create(const cres_vertex_options *o,
                                                 cres_resolver **out, cres_error *err) {
    cres_vertex_options none;
    cres_resolver *r = NULL;
    cres__tf_fields f;
    cres_result res;
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "vertex: out is NULL");
    *out = NULL;
    memset(&f, 0, sizeof f);
    f.src = o->cluster_spec ? "options.cluster_spec" : "CLUSTER_SPEC";
    f.dense = 1;
    res = cres__tf_create(&cres__vertex_vtable, o->config, o->cluster_spec, &f, NULL, &r, err);
    if (res == CRES_OK && cres__spec_total(((cres__tfconfig *)r)->spec) == 0)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "vertex: %s %s with a member", f.src,
                         o->cluster_spec ? "names no worker pool"
                                         : "is not set, empty or names no worker pool");
    if (res == CRES_OK && (!r->task_type || r->task_id < 0))
        r->no_task_why = o->cluster_spec
                             ? "options.cluster_spec gives no task of a type and an index"
                             : "CLUSTER_SPEC gives no task of a type and an index";
    if (res == CRES_OK) res = cres__apply_options(r, o->task_type, o->task_id, o->rpc_layer, err);
    if (!r) return res;
    return cres__created(r, res, out);
}
#else
CRES__LEFT_OUT(cres_vertex_resolver_create, cres_vertex_options, "vertex",
               "CLUSTER_RESOLVER_NO_VERTEX")
#endif /* CLUSTER_RESOLVER_NO_VERTEX */

#ifndef CLUSTER_RESOLVER_NO_SKYPILOT
CRES__BYTE_ALIGNED static const char cres__skypilot_vtable_name[] = "skypilot";
static const cres_resolver_vtable cres__skypilot_vtable = {
    cres__skypilot_vtable_name, cres__hosts_resolve, NULL, cres__hosts_accelerators,
    cres__hosts_destroy, NULL, NULL};

/* SKYPILOT_NODE_IPS: one address per line, the head node first; a trailing newline and
   carriage returns are tolerated, an empty line between two is not. */
CRES__PRIVATE cres_result cres__skypilot_nodes(cres__hosts *h, const char *job, const char *ips,
                                               int port, int *count, cres_error *err) {
    const char *p = ips, *end = ips + strlen(ips);
    cres_result res = CRES_OK;
    while (end > ips && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ')) end--;
    *count = 0;
    if (end == ips)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "skypilot: SKYPILOT_NODE_IPS is empty");
    while (res == CRES_OK && p < end) {
        const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        while (e > p && (e[-1] == '\r' || e[-1] == ' ')) e--;
        while (p < e && *p == ' ') p++;
        if (*count == CRES_MAX_HOSTLIST_HOSTS)
            return cres__fail(err, CRES_ERR_LIMIT, "skypilot: SKYPILOT_NODE_IPS: more than %d",
                              CRES_MAX_HOSTLIST_HOSTS);
        res = cres__hosts_add(h, job, *count, p, (size_t)(e - p), port, "SKYPILOT_NODE_IPS", err);
        if (res == CRES_OK) (*count)++;
        p = nl ? nl + 1 : end;
    }
    return res;
}

CRES_API cres_result cres_skypilot_resolver_create(const cres_skypilot_options *o,
                                                   cres_resolver **out, cres_error *err) {
    static const char *const need[] = {"SKYPILOT_NODE_IPS", "SKYPILOT_NODE_RANK", NULL};
    cres_skypilot_options none;
    cres__hosts *h;
    const char *job;
    int count = 0, rank = -1, nodes = -1;
    cres_result res;
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "skypilot: out is NULL");
    *out = NULL;
    job = o->job_name ? o->job_name : "worker";
    if ((res = cres__check_job_name(job, err)) != CRES_OK ||
        (res = cres__hosts_new(&cres__skypilot_vtable, o->config, o->port, &h, err)) != CRES_OK)
        return res;
    res = cres__env_require(&h->base, need, err);
    if (res == CRES_OK)
        res = cres__skypilot_nodes(h, job, cres_resolver_getenv(&h->base, "SKYPILOT_NODE_IPS"),
                                   o->port ? o->port : CRES__DEFAULT_PORT, &count, err);
    if (res == CRES_OK) res = cres__hosts_unique(h, "SKYPILOT_NODE_IPS", err);
    if (res == CRES_OK)
        res = cres__env_need(&h->base, "SKYPILOT_NODE_RANK", 0, count - 1, &rank, err);
    if (res == CRES_OK)
        res = cres__env_int(&h->base, "SKYPILOT_NUM_NODES", 1, INT_MAX, &nodes, err);
    if (res == CRES_OK && nodes >= 0 && nodes != count)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "skypilot: SKYPILOT_NUM_NODES=%d but SKYPILOT_NODE_IPS names %d nodes",
                         nodes, count);
    if (res == CRES_OK)
        res = cres__env_int(&h->base, "SKYPILOT_NUM_GPUS_PER_NODE", 0, 4096, &h->gpus, err);
    return cres__hosts_finish(h, res, job, rank, o->task_type, o->task_id, o->rpc_layer, out, err);
}
#else
CRES__LEFT_OUT(cres_skypilot_resolver_create, cres_skypilot_options, "skypilot",
               "CLUSTER_RESOLVER_NO_SKYPILOT")
#endif /* CLUSTER_RESOLVER_NO_SKYPILOT */

#ifndef CLUSTER_RESOLVER_NO_LWS
CRES__BYTE_ALIGNED static const char cres__lws_vtable_name[] = "lws";
static const cres_resolver_vtable cres__lws_vtable = {
    cres__lws_vtable_name, cres__hosts_resolve, NULL, NULL, cres__hosts_destroy, NULL, NULL};

/* A DNS name: dot-separated labels of letters, digits and '-', none empty or longer than
   63 bytes, not starting or ending with '-'. */
CRES__PRIVATE int cres__is_dns_name(const char *s, size_t n) {
    size_t i, label = 0;
    if (n == 0 || n > 253 || strspn(s, "0123456789.") >= n) return 0; /* not an IPv4 address */
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (label == 0 || s[i - 1] == '-') return 0;
            label = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '-') {
            if ((label == 0 && c == '-') || ++label > 63) return 0;
        } else {
            return 0;
        }
    }
    return label > 0 && s[n - 1] != '-';
}

/* LeaderWorkerSet names the leader ("<lws>-<group>.<subdomain>.<ns>") and the group's size;
   worker i is the leader's first label with "-i" after it, the rest unchanged. */
CRES__PRIVATE cres_result cres__lws_group(cres__hosts *h, const char *job, const char *leader,
                                          int size, int port, cres_error *err) {
    size_t n = strlen(leader), first = strcspn(leader, ".");
    char host[CRES_MAX_NAME_LENGTH + 1], q[CRES__QUOTE_SIZE];
    int i;
    cres_result res = CRES_OK;
    if (!cres__is_dns_name(leader, n))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "lws: LWS_LEADER_ADDRESS=%s is not a DNS name",
                          cres__quote(q, sizeof q, leader, n));
    for (i = 0; res == CRES_OK && i < size; i++) {
        int k = i == 0 ? snprintf(host, sizeof host, "%s", leader)
                       : snprintf(host, sizeof host, "%.*s-%d%s", (int)first, leader, i,
                                  leader + first);
        if (k < 0 || (size_t)k >= sizeof host)
            return cres__fail(err, CRES_ERR_LIMIT, "lws: worker %d's name is too long", i);
        res = cres__hosts_add(h, job, i, host, (size_t)k, port, "LWS_LEADER_ADDRESS", err);
    }
    return res;
}

/* The pod's host name is the first label of its address: checked when known. */
CRES__PRIVATE cres_result cres__lws_check_host(const cres__hosts *h, const char *job, int own,
                                               const char *hostname, cres_error *err) {
    const char *address = cres_spec_task_address(h->spec, job, own);
    size_t first = strcspn(address, ".:");
    char q[CRES__QUOTE_SIZE], qa[CRES__QUOTE_SIZE];
    if (!hostname || !*hostname ||
        (strlen(hostname) == first && memcmp(hostname, address, first) == 0))
        return CRES_OK;
    return cres__fail(
        err, CRES_ERR_ENVIRONMENT, "lws: LWS_WORKER_INDEX=%d is %s, but this pod's host name is %s",
        own, cres__quote(qa, sizeof qa, address, first), cres__quote_str(q, sizeof q, hostname));
}

/* LWS's TPU injection (lws pkg/utils/accelerators/tpu.go) names the group's TPU hosts in
   TPU_WORKER_HOSTNAMES and this one's in TPU_WORKER_ID; a leader without TPUs is left out of
   both, so the TPU processes (JAX's) are fewer than the group: refuse rather than count it. */
CRES__PRIVATE cres_result cres__lws_check_tpu(cres__hosts *h, int size, int own, cres_error *err) {
    const char *hosts = cres_resolver_getenv(&h->base, "TPU_WORKER_HOSTNAMES");
    const char *id = cres_resolver_getenv(&h->base, "TPU_WORKER_ID");
    size_t n = 1;
    long long worker = own;
    char q[CRES__QUOTE_SIZE];
    if (!hosts || cres__is_blank(hosts)) return CRES_OK;
    for (; *hosts; hosts++) n += *hosts == ',';
    if (id && !cres__is_blank(id) &&
        (cres__parse_decimal(id, strlen(id), &worker) != 1 || worker != own))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "lws: TPU_WORKER_ID=%s is not LWS_WORKER_INDEX=%d: the TPU slice is not "
                          "the group (a leader without TPUs?); name the tpu backend for its view",
                          cres__quote_str(q, sizeof q, id), own);
    if ((long long)n != size)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "lws: TPU_WORKER_HOSTNAMES names %zu hosts, LWS_GROUP_SIZE=%d: the TPU "
                          "slice is not the group (a leader without TPUs?); name the tpu backend "
                          "for its view",
                          n, size);
    return CRES_OK;
}

CRES_API cres_result cres_lws_resolver_create(const cres_lws_options *o, cres_resolver **out,
                                              cres_error *err) {
    static const char *const need[] = {"LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE",
                                       "LWS_WORKER_INDEX", NULL};
    cres_lws_options none;
    cres__hosts *h;
    const char *job;
    int size = 0, own = -1;
    cres_result res;
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "lws: out is NULL");
    *out = NULL;
    job = o->job_name ? o->job_name : "worker";
    if ((res = cres__check_job_name(job, err)) != CRES_OK ||
        (res = cres__hosts_new(&cres__lws_vtable, o->config, o->port, &h, err)) != CRES_OK)
        return res;
    res = cres__env_require(&h->base, need, err);
    if (res == CRES_OK)
        res = cres__env_need(&h->base, "LWS_GROUP_SIZE", 1, CRES_MAX_HOSTLIST_HOSTS, &size, err);
    if (res == CRES_OK) res = cres__env_need(&h->base, "LWS_WORKER_INDEX", 0, size - 1, &own, err);
    if (res == CRES_OK)
        res = cres__lws_group(h, job, cres_resolver_getenv(&h->base, "LWS_LEADER_ADDRESS"), size,
                              o->port ? o->port : CRES__DEFAULT_PORT, err);
    if (res == CRES_OK)
        res = cres__lws_check_host(h, job, own,
                                   o->hostname ? o->hostname
                                               : cres_resolver_getenv(&h->base, cres__hostname_var),
                                   err);
    if (res == CRES_OK) res = cres__lws_check_tpu(h, size, own, err);
    return cres__hosts_finish(h, res, job, own, o->task_type, o->task_id, o->rpc_layer, out, err);
}
#else
CRES__LEFT_OUT(cres_lws_resolver_create, cres_lws_options, "lws", "CLUSTER_RESOLVER_NO_LWS")
#endif /* CLUSTER_RESOLVER_NO_LWS */

#ifndef CLUSTER_RESOLVER_NO_VOLCANO
CRES__BYTE_ALIGNED static const char cres__volcano_vtable_name[] = "volcano";
static const cres_resolver_vtable cres__volcano_vtable = {
    cres__volcano_vtable_name, cres__hosts_resolve, NULL, NULL, cres__hosts_destroy, NULL, NULL};

/* One task's hosts: VC_<TASK>_HOSTS, a comma list of "<job>-<task>-<i>.<job>", whose count
   VC_<TASK>_NUM repeats. The job is the task's name in lower case ('_' stays: Volcano
   wrote '-' as '_' and the two cannot be told apart). */
CRES__PRIVATE cres_result cres__volcano_task(cres__hosts *h, const char *var, size_t task_len,
                                             const char *hosts, int port, cres_error *err) {
    char job[CRES_MAX_NAME_LENGTH + 1], num_var[CRES_MAX_NAME_LENGTH + 16], q[CRES__QUOTE_SIZE];
    const char *p = hosts;
    size_t i;
    int count = 0, num = -1;
    cres_result res = CRES_OK;
    if (task_len > CRES_MAX_NAME_LENGTH) /* never 0: the caller's VC_ and _HOSTS hold one */
        return cres__fail(err, CRES_ERR_LIMIT,
                          "volcano: VC_%.40s..._HOSTS: the task name is %zu bytes, more than "
                          "the limit of %d", var + 3, task_len, CRES_MAX_NAME_LENGTH);
    for (i = 0; i < task_len; i++) {
        char c = var[3 + i];
        job[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    job[task_len] = '\0';
    snprintf(num_var, sizeof num_var, "VC_%.*s_NUM", (int)task_len, var + 3);
    if (cres__is_blank(hosts)) /* also a task of no replicas: no member to name */
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "volcano: VC_%.*s_HOSTS is empty",
                          (int)task_len, var + 3);
    while (res == CRES_OK && *p) {
        size_t n = strcspn(p, ",");
        if (count == CRES_MAX_HOSTLIST_HOSTS)
            return cres__fail(err, CRES_ERR_LIMIT, "volcano: %s: too many hosts", num_var);
        snprintf(q, sizeof q, "VC_%.*s_HOSTS", (int)task_len, var + 3);
        res = cres__hosts_add(h, job, count++, p, n, port, q, err);
        p += n;
        if (*p == ',' && *++p == '\0')
            res = res == CRES_OK ? cres__fail(err, CRES_ERR_ENVIRONMENT,
                                              "volcano: %s ends with a comma", q)
                                 : res;
    }
    if (res == CRES_OK) res = cres__env_int(&h->base, num_var, 0, INT_MAX, &num, err);
    if (res == CRES_OK && num >= 0 && num != count)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT, "volcano: %s=%d but %s names %d hosts",
                         num_var, num, q, count);
    return res;
}

/* Every VC_<TASK>_HOSTS of the environment, one job each. */
CRES__PRIVATE cres_result cres__volcano_tasks(cres__hosts *h, int port, cres_error *err) {
    size_t i, found = 0;
    const char *e;
    cres_result res = CRES_OK;
    for (i = 0; res == CRES_OK && (e = cres_resolver_env_at(&h->base, i)) != NULL; i++) {
        const char *eq = strchr(e, '=');
        size_t n = eq ? (size_t)(eq - e) : 0;
        if (n < 10 || strncmp(e, "VC_", 3) != 0 || memcmp(eq - 6, "_HOSTS", 6) != 0) continue;
        res = cres__volcano_task(h, e, n - 9, eq + 1, port, err);
        found++;
    }
    if (res == CRES_OK && !found)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "volcano: no VC_<TASK>_HOSTS variable (the job's svc plugin sets them)");
    return res;
}

/* The own task: the host whose first label is this pod's host name. */
CRES__PRIVATE cres_result cres__volcano_own(const cres__hosts *h, const char *hostname,
                                            const char **job, int *own, cres_error *err) {
    size_t i, k, n = hostname ? strlen(hostname) : 0;
    char q[CRES__QUOTE_SIZE];
    *job = NULL;
    *own = -1;
    if (!n) return CRES_OK;
    for (i = 0; i < h->spec->count; i++) {
        const cres_job *j = &h->spec->jobs[i].pub;
        for (k = 0; k < j->tasks_count; k++) {
            const char *a = j->tasks[k].address;
            if (strncmp(a, hostname, n) == 0 && (a[n] == '.' || a[n] == ':')) {
                *job = j->name;
                *own = j->tasks[k].index;
                return CRES_OK;
            }
        }
    }
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "volcano: this pod's host name %s is in no VC_<TASK>_HOSTS",
                      cres__quote(q, sizeof q, hostname, n));
}

CRES_API cres_result cres_volcano_resolver_create(const cres_volcano_options *o,
                                                  cres_resolver **out, cres_error *err) {
    cres_volcano_options none;
    cres__hosts *h;
    const char *job = NULL, *hostname, *index_var = "VC_TASK_INDEX";
    int own = -1, index = -1;
    cres_result res;
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "volcano: out is NULL");
    *out = NULL;
    if ((res = cres__hosts_new(&cres__volcano_vtable, o->config, o->port, &h, err)) != CRES_OK)
        return res;
    hostname = o->hostname ? o->hostname : cres_resolver_getenv(&h->base, cres__hostname_var);
    if (!cres_resolver_getenv(&h->base, index_var)) index_var = "VK_TASK_INDEX"; /* older */
    res = cres__volcano_tasks(h, o->port ? o->port : CRES__DEFAULT_PORT, err);
    if (res == CRES_OK) res = cres__hosts_unique(h, "VC_<TASK>_HOSTS", err);
    if (res == CRES_OK) res = cres__volcano_own(h, hostname, &job, &own, err);
    if (res == CRES_OK) res = cres__env_int(&h->base, index_var, 0, INT_MAX, &index, err);
    if (res == CRES_OK && index >= 0 && index_var[1] == 'C') /* the env plugin sets both */
        res = cres__env_agrees(&h->base, "VK_TASK_INDEX", index, index_var, err);
    if (res == CRES_OK && index >= 0 && own >= 0 && index != own)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "volcano: %s=%d, but this pod's host name is task %d of %s", index_var,
                         index, own, job);
    if (own < 0) h->base.no_task_why = "HOSTNAME, which names this pod's task, is not set";
    return cres__hosts_finish(h, res, job, own, o->task_type, o->task_id, o->rpc_layer, out, err);
}
#else
CRES__LEFT_OUT(cres_volcano_resolver_create, cres_volcano_options, "volcano",
               "CLUSTER_RESOLVER_NO_VOLCANO")
#endif /* CLUSTER_RESOLVER_NO_VOLCANO */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Coordinator-only sources: torchrun, JAX, AWS Batch, TPU multislice               >>coord */

#if !defined(CLUSTER_RESOLVER_NO_TORCH) || !defined(CLUSTER_RESOLVER_NO_JAX) || \
    !defined(CLUSTER_RESOLVER_NO_AWSBATCH) || !defined(CLUSTER_RESOLVER_NO_TPU)
/* These sources name the coordinator, the size and the own rank, never every member's
   address: resolve() says so (CRES_ERR_INCOMPLETE) and launch() answers from the variables. */
typedef struct cres__coord {
    cres_resolver base;
    cres_launch_info info; /* as the variables say */
    const char *source;    /* what decided, for messages: "TORCHELASTIC_RUN_ID (torchrun)" */
} cres__coord;

CRES__PRIVATE cres_result cres__coord_resolve(cres_resolver *r, cres_cluster_spec **out,
                                              cres_error *err) {
    const cres__coord *c = (const cres__coord *)r;
    char n[24] = "an unknown number of";
    (void)out;
    if (c->info.world_size != CRES_UNKNOWN) snprintf(n, sizeof n, "%d", c->info.world_size);
    return cres__fail(err, CRES_ERR_INCOMPLETE,
                      "%s: %s names only the coordinator (%s) of %s processes, not every address",
                      r->vtable->name, c->source, c->info.master_address, n);
}

/* The own task, or task 0 (the coordinator) when asked: the only address the source names,
   or the one the environment names beside it (MASTER_ADDR beside AWS Batch's), as launch()
   answers. */
CRES__PRIVATE cres_result cres__coord_master(cres_resolver *r, const char *task_type, int task_id,
                                             const char *rpc_layer, char *buf, size_t cap,
                                             size_t *out_len, cres_error *err) {
    const cres__coord *c = (const cres__coord *)r;
    const char *rpc = rpc_layer ? rpc_layer : r->rpc_layer;
    const char *type = task_type ? task_type : r->task_type;
    int id = task_id >= 0 ? task_id : r->task_id;
    char q[CRES__QUOTE_SIZE];
    cres_launch_info info = c->info;
    cres_result res;
    if ((task_type || task_id >= 0) && !(type && strcmp(type, "worker") == 0 && id == 0))
        return cres__fail(err, CRES_ERR_INCOMPLETE,
                          "%s: %s names only the coordinator (task \"worker\" 0), not task %s %d",
                          r->vtable->name, c->source,
                          cres__quote(q, sizeof q, type ? type : "", type ? strlen(type) : 0), id);
    res = cres_launch_apply_env(r, &info, err);
    if (res != CRES_OK) return res;
    return cres__write_master(info.master_address, rpc, buf, cap, out_len, err);
}

CRES__PRIVATE cres_result cres__coord_launch(cres_resolver *r, cres_launch_info *out,
                                             cres_error *err) {
    const cres__coord *c = (const cres__coord *)r;
    char q[CRES__QUOTE_SIZE];
    if (!r->task_type && r->task_id < 0 && c->info.rank == CRES_UNKNOWN) {
        *out = c->info; /* a node's launcher: its workers, not it, have ranks */
        return CRES_OK;
    }
    if (c->info.world_size == CRES_UNKNOWN)
        return cres__fail(err, CRES_ERR_NOT_FOUND,
                          "%s: task %s %d cannot be found: %s counts the nodes, not the processes",
                          r->vtable->name,
                          cres__quote(q, sizeof q, r->task_type ? r->task_type : "",
                                      r->task_type ? strlen(r->task_type) : 0),
                          r->task_id, c->source);
    if (!r->task_type || strcmp(r->task_type, "worker") != 0 || r->task_id < 0 ||
        r->task_id >= c->info.world_size)
        return cres__fail(err, CRES_ERR_NOT_FOUND,
                          "%s: task %s %d is not in the job (\"worker\" 0..%d)", r->vtable->name,
                          cres__quote(q, sizeof q, r->task_type ? r->task_type : "",
                                      r->task_type ? strlen(r->task_type) : 0),
                          r->task_id, c->info.world_size - 1);
    *out = c->info;
    if (r->task_id != c->info.rank) { /* an override: the variables describe another rank */
        out->rank = r->task_id;
        out->local_rank = out->local_world_size = out->node_rank = CRES_UNKNOWN;
    }
    return CRES_OK;
}

CRES__PRIVATE cres_result cres__coord_new(const cres_resolver_vtable *vtable,
                                          const cres_config *config, cres__coord **c,
                                          cres_error *err) {
    cres_resolver *r;
    cres_result res = cres_resolver_new(sizeof(cres__coord), vtable, config, &r, err);
    if (res != CRES_OK) return res;
    *c = (cres__coord *)r;
    (*c)->info.world_size = (*c)->info.rank = (*c)->info.local_rank = CRES_UNKNOWN;
    (*c)->info.local_world_size = (*c)->info.node_rank = (*c)->info.num_nodes = CRES_UNKNOWN;
    (*c)->info.master_port = CRES_UNKNOWN;
    return CRES_OK;
}

/* The coordinator: a host (IPv6 without brackets, or in them) and a port. */
CRES__PRIVATE cres_result cres__coord_set_master(cres__coord *c, const char *host, size_t host_len,
                                                 int port, const char *var, const char *value,
                                                 cres_error *err) {
    cres__writer w;
    char q[CRES__QUOTE_SIZE];
    if (host_len > 1 && host[0] == '[' && host[host_len - 1] == ']') host++, host_len -= 2;
    if (host_len && host_len < sizeof c->info.master_host) {
        memcpy(c->info.master_host, host, host_len);
        c->info.master_host[host_len] = '\0';
        cres__start(&w, c->info.master_address, sizeof c->info.master_address, NULL);
        if (cres__put_host_port(&w, c->info.master_host, port) &&
            cres__finish(&w, NULL, NULL) == CRES_OK) {
            c->info.master_port = port;
            return CRES_OK;
        }
    }
    return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s=%s is not a host name or IP address%s",
                      c->base.vtable->name, var, cres__quote_str(q, sizeof q, value),
                      memchr(host, ':', host_len) ? " (a port goes in its own variable)" : "");
}

/* A host in `var` and a port in `port_var`. */
CRES__PRIVATE cres_result cres__coord_host_port(cres__coord *c, const char *var,
                                                const char *port_var, cres_error *err) {
    const char *host = cres_resolver_getenv(&c->base, var);
    int port = 0;
    cres_result res = cres__env_need(&c->base, port_var, 1, 65535, &port, err);
    if (res != CRES_OK) return res;
    return cres__coord_set_master(c, host, strlen(host), port, var, host, err);
}

/* a below b, both known: the rank checks every source gets. */
CRES__PRIVATE cres_result cres__coord_below(const cres__coord *c, int a, const char *a_name, int b,
                                            const char *b_name, cres_error *err) {
    if (a == CRES_UNKNOWN || b == CRES_UNKNOWN || a < b) return CRES_OK;
    return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s=%d is not below %s=%d",
                      c->base.vtable->name, a_name, a, b_name, b);
}

/* a count not above b, both known. */
CRES__PRIVATE cres_result cres__coord_within(const cres__coord *c, int a, const char *a_name, int b,
                                             const char *b_name, cres_error *err) {
    if (a == CRES_UNKNOWN || b == CRES_UNKNOWN || a <= b) return CRES_OK;
    return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s=%d is above %s=%d", c->base.vtable->name,
                      a_name, a, b_name, b);
}

/* torchrun --virtual-local-rank gives every worker LOCAL_RANK 0 and one GPU of its own
   (CUDA_VISIBLE_DEVICES a single id): that local rank says nothing of the rank's place. */
CRES__PRIVATE int cres__virtual_local_rank(const cres__coord *c) {
    const char *cuda = cres_resolver_getenv(&c->base, "CUDA_VISIBLE_DEVICES");
    return c->info.local_rank == 0 && cuda && *cuda && !strchr(cuda, ',') &&
           cres__env_set(&c->base, "TORCHELASTIC_RUN_ID");
}

/* Launchers give each node a block of consecutive ranks (torchrun: the agents' in group
   order), every node at least one: so the ranks before this node's block (RANK less
   LOCAL_RANK) number at least the nodes before it, none when it is node 0, and the block
   leaves at least one rank for each node after it. */
CRES__PRIVATE cres_result cres__coord_blocks(const cres__coord *c, const char *const names[6],
                                             cres_error *err) {
    const cres_launch_info *i = &c->info;
    int before, after;
    if (i->local_rank == CRES_UNKNOWN || i->node_rank == CRES_UNKNOWN || !*names[2] ||
        !*names[4] || cres__virtual_local_rank(c))
        return CRES_OK;
    before = i->rank - i->local_rank;
    if (before < i->node_rank || (i->node_rank == 0 && before > 0))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: %s=%d less %s=%d puts %d ranks on the %d nodes before %s=%d",
                          c->base.vtable->name, names[1], i->rank, names[2], i->local_rank, before,
                          i->node_rank, names[4], i->node_rank);
    if (i->local_world_size == CRES_UNKNOWN || i->num_nodes == CRES_UNKNOWN || !*names[3])
        return CRES_OK;
    after = i->world_size - before - i->local_world_size;
    if (after < 0)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "%s: %s=%d less %s=%d plus %s=%d is past %s=%d", c->base.vtable->name,
                          names[1], i->rank, names[2], i->local_rank, names[3], i->local_world_size,
                          names[0], i->world_size);
    if (after >= i->num_nodes - i->node_rank - 1) return CRES_OK;
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "%s: %s=%d less %s=%d plus %s=%d leaves %d of %s=%d ranks for the %d "
                      "nodes after %s=%d of %s=%d",
                      c->base.vtable->name, names[1], i->rank, names[2], i->local_rank, names[3],
                      i->local_world_size, after, names[0], i->world_size,
                      i->num_nodes - i->node_rank - 1, names[4], i->node_rank, names[5],
                      i->num_nodes);
}

/* Checks the numbers against each other, takes the own task ("worker", rank) and the
   options; frees the resolver on failure. */
CRES__PRIVATE cres_result cres__coord_finish(cres__coord *c, cres_result res,
                                             const char *const names[6], const char *task_type,
                                             int task_id, const char *rpc_layer,
                                             cres_resolver **out, cres_error *err) {
    const cres_launch_info *i = &c->info;
    if (res == CRES_OK) res = cres__coord_below(c, i->rank, names[1], i->world_size, names[0], err);
    if (res == CRES_OK)
        res = cres__coord_below(c, i->local_rank, names[2], i->local_world_size, names[3], err);
    if (res == CRES_OK)
        res = cres__coord_within(c, i->local_world_size, names[3], i->world_size, names[0], err);
    if (res == CRES_OK)
        res = cres__coord_below(c, i->node_rank, names[4], i->num_nodes, names[5], err);
    if (res == CRES_OK) /* with their counts unknown, still within the world */
        res = cres__coord_below(c, i->local_rank, names[2], i->world_size, names[0], err);
    if (res == CRES_OK)
        res = cres__coord_below(c, i->node_rank, names[4], i->world_size, names[0], err);
    if (res == CRES_OK)
        res = cres__coord_within(c, i->num_nodes, names[5], i->world_size, names[0], err);
    if (res == CRES_OK) res = cres__coord_blocks(c, names, err);
    if (res == CRES_OK && i->rank != CRES_UNKNOWN) /* else a node's launcher: no task */
        res = cres_set_detected_task(&c->base, "worker", i->rank, err);
    if (res == CRES_OK) res = cres__apply_options(&c->base, task_type, task_id, rpc_layer, err);
    if (res != CRES_OK) {
        cres_resolver_free(&c->base);
        return res;
    }
    if (i->rank == CRES_UNKNOWN)
        cres__log(&c->base, CRES_LOG_INFO, "%s: %s: node %d of %d, coordinator %s",
                  c->base.vtable->name, c->source, i->node_rank, i->num_nodes,
                  i->master_address);
    else
        cres__log(&c->base, CRES_LOG_INFO, "%s: %s: rank %d of %d, coordinator %s",
                  c->base.vtable->name, c->source, i->rank, i->world_size, i->master_address);
    *out = &c->base;
    return CRES_OK;
}
#endif

#ifndef CLUSTER_RESOLVER_NO_TPU
static const cres_resolver_vtable cres__tpu_slices_vtable = {
    cres__tpu_vtable_name, cres__coord_resolve, cres__coord_master, NULL, NULL, NULL,
    cres__coord_launch};

/* GKE TPU multislice: the environment names this slice's workers only. A rank is slice id x
   workers per slice + worker id; the coordinator is MEGASCALE_COORDINATOR_ADDRESS's host at
   JAX's coordinator port, 8482 (its own port is Megascale's). */
CRES__PRIVATE cres_result cres__tpu_multislice(const cres_tpu_options *o, int slices,
                                               cres_resolver **out, cres_error *err) {
    static const char *const need[] = {"MEGASCALE_COORDINATOR_ADDRESS", "MEGASCALE_SLICE_ID",
                                       "TPU_WORKER_ID", NULL};
    static const char *const names[6] = {"MEGASCALE_NUM_SLICES", "TPU_WORKER_ID", "", "", "", ""};
    cres__coord *c;
    const char *from = "TPU_PROCESS_ADDRESSES", *list, *v, *host, *p;
    size_t len;
    int per_slice = 1, slice = 0, worker = 0, port;
    char q[CRES__QUOTE_SIZE];
    cres_result res = cres__coord_new(&cres__tpu_slices_vtable, o->config, &c, err);
    if (res != CRES_OK) return res;
    c->source = "MEGASCALE_NUM_SLICES (TPU multislice)";
    if (!cres__env_set(&c->base, from)) from = "TPU_WORKER_HOSTNAMES";
    list = cres_resolver_getenv(&c->base, from);
    if (!list || cres__is_blank(list))
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "tpu: MEGASCALE_NUM_SLICES=%d is set, but neither TPU_PROCESS_ADDRESSES "
                         "nor TPU_WORKER_HOSTNAMES names this slice's workers",
                         slices);
    for (p = list; res == CRES_OK && *p; p++) {
        if (*p == ',' && (p == list || p[1] == '\0' || p[1] == ','))
            res = cres__fail(err, CRES_ERR_ENVIRONMENT, "tpu: %s=%s has an empty entry", from,
                             cres__quote_str(q, sizeof q, list));
        if (*p == ',' && per_slice++ > INT_MAX / slices - 1)
            res = cres__fail(err, CRES_ERR_LIMIT, "tpu: %s: too many workers", from);
    }
    if (res == CRES_OK) res = cres__env_require(&c->base, need, err);
    if (res == CRES_OK)
        res = cres__env_need(&c->base, "MEGASCALE_SLICE_ID", 0, slices - 1, &slice, err);
    if (res == CRES_OK)
        res = cres__env_need(&c->base, "TPU_WORKER_ID", 0, per_slice - 1, &worker, err);
    if (res == CRES_OK) {
        v = cres_resolver_getenv(&c->base, "MEGASCALE_COORDINATOR_ADDRESS");
        if (!cres__split_address(v, &host, &len, &port))
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "tpu: MEGASCALE_COORDINATOR_ADDRESS=%s is not a host or host:port",
                             cres__quote_str(q, sizeof q, v));
        else
            res = cres__coord_set_master(c, host, len, 8482, "MEGASCALE_COORDINATOR_ADDRESS", v,
                                         err);
    }
    if (res != CRES_OK) {
        cres_resolver_free(&c->base);
        return res;
    }
    c->info.world_size = per_slice * slices; /* fits: the loop bounded per_slice */
    c->info.rank = slice * per_slice + worker;
    if (strcmp(from, "TPU_WORKER_HOSTNAMES") == 0) { /* a process per host */
        c->info.local_rank = 0;
        c->info.local_world_size = 1;
        c->info.node_rank = c->info.rank;
        c->info.num_nodes = c->info.world_size;
    }
    if (res == CRES_OK) res = cres_set_rpc_layer(&c->base, "grpc", err);
    return cres__coord_finish(c, res, names, o->task_type, o->task_id, o->rpc_layer, out, err);
}
#endif

#ifndef CLUSTER_RESOLVER_NO_TORCH
/* torchrun's workers (and Ray Train, AzureML, Kubeflow v1): the torch.distributed names. */
CRES__PRIVATE cres_result cres__torch_workers(cres__coord *c, int torchrun, cres_error *err) {
    static const char *const base[] = {"MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", NULL};
    static const char *const all[] = {"MASTER_ADDR",      "MASTER_PORT", "RANK",
                                      "WORLD_SIZE",       "LOCAL_RANK",  "LOCAL_WORLD_SIZE",
                                      "GROUP_RANK",       "GROUP_WORLD_SIZE", NULL};
    const cres_resolver *r = &c->base;
    cres_launch_info *i = &c->info;
    const char *node = cres_resolver_getenv(r, "GROUP_RANK") ? "GROUP_RANK" : "NODE_RANK";
    cres_result res = cres__env_require(r, torchrun ? all : base, err);
    if (res == CRES_OK) res = cres__coord_host_port(c, "MASTER_ADDR", "MASTER_PORT", err);
    if (res == CRES_OK) res = cres__env_need(r, "WORLD_SIZE", 1, INT_MAX, &i->world_size, err);
    if (res == CRES_OK) res = cres__env_need(r, "RANK", 0, INT_MAX, &i->rank, err);
    if (res == CRES_OK) res = cres__env_int(r, "LOCAL_RANK", 0, INT_MAX, &i->local_rank, err);
    if (res == CRES_OK)
        res = cres__env_int(r, "LOCAL_WORLD_SIZE", 1, INT_MAX, &i->local_world_size, err);
    if (res == CRES_OK) res = cres__env_int(r, node, 0, INT_MAX, &i->node_rank, err);
    if (res == CRES_OK) res = cres__env_int(r, "GROUP_WORLD_SIZE", 1, INT_MAX, &i->num_nodes, err);
    return res;
}

/* PET_NPROC_PER_NODE, torchrun's processes per node: a count (unset or blank: 1, torchrun's
   default), or 0 for a device keyword ("auto", "gpu", "cpu"...), which torchrun turns into
   a count only when it starts. */
CRES__PRIVATE cres_result cres__torch_nproc(const cres_resolver *r, int *nproc, cres_error *err) {
    const char *v = cres_resolver_getenv(r, "PET_NPROC_PER_NODE");
    *nproc = 1;
    if (!v || cres__is_blank(v)) return CRES_OK;
    if (strspn(v, "abcdefghijklmnopqrstuvwxyz") == strlen(v)) {
        *nproc = 0;
        return CRES_OK;
    }
    return cres__env_need(r, "PET_NPROC_PER_NODE", 1, INT_MAX, nproc, err);
}

/* A node's launch: its node numbers, `nproc` processes on it (0: not known yet), and the
   own rank unknown: this process is the node's torchrun, its workers do not exist yet. */
CRES__PRIVATE cres_result cres__torch_node_launch(cres__coord *c, int nnodes, int node, int nproc,
                                                  cres_error *err) {
    cres_launch_info *i = &c->info;
    if (nproc > INT_MAX / nnodes)
        return cres__fail(err, CRES_ERR_LIMIT,
                          "torch: PET_NNODES=%d nodes of PET_NPROC_PER_NODE=%d processes are "
                          "more than %d",
                          nnodes, nproc, INT_MAX);
    i->num_nodes = nnodes;
    i->node_rank = node;
    i->world_size = nproc ? nnodes * nproc : CRES_UNKNOWN;
    i->local_world_size = nproc ? nproc : CRES_UNKNOWN;
    i->rank = i->local_rank = CRES_UNKNOWN;
    return cres__coord_below(c, node, "PET_NODE_RANK", nnodes, "PET_NNODES", err);
}

/* Kubeflow's PET_* (torchrun's flags as variables) alone (Kubeflow Trainer): one torchrun
   per node, starting PET_NPROC_PER_NODE processes. When that is one, this process is the
   node's only one, and the world one per node. */
CRES__PRIVATE cres_result cres__torch_nodes(cres__coord *c, cres_error *err) {
    static const char *const pet[] = {"PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR",
                                      "PET_MASTER_PORT", NULL};
    const cres_resolver *r = &c->base;
    cres_launch_info *i = &c->info;
    const char *nnodes = cres_resolver_getenv(r, "PET_NNODES");
    int nodes = 0, node = 0, nproc = 1;
    char q[CRES__QUOTE_SIZE];
    cres_result res;
    if (nnodes && strchr(nnodes, ':')) /* before the rest: an elastic job has no node rank */
        return cres__fail(err, CRES_ERR_UNSUPPORTED,
                          "torch: PET_NNODES=%s is an elastic range: the node count is known "
                          "only after torchrun's rendezvous",
                          cres__quote_str(q, sizeof q, nnodes));
    res = cres__env_require(r, pet, err);
    if (res == CRES_OK) res = cres__coord_host_port(c, "PET_MASTER_ADDR", "PET_MASTER_PORT", err);
    if (res == CRES_OK) res = cres__env_need(r, "PET_NNODES", 1, INT_MAX, &nodes, err);
    if (res == CRES_OK) res = cres__env_need(r, "PET_NODE_RANK", 0, INT_MAX, &node, err);
    if (res == CRES_OK) res = cres__torch_nproc(r, &nproc, err);
    if (res != CRES_OK) return res;
    if (nproc != 1) return cres__torch_node_launch(c, nodes, node, nproc, err);
    i->world_size = i->num_nodes = nodes;
    i->rank = i->node_rank = node;
    i->local_rank = 0;
    i->local_world_size = 1;
    return CRES_OK;
}

/* Outside torchrun each torch.distributed name and its PET_* twin describe this pod: the
   same text, or one of them unset or blank. From pair `first`: 1 leaves WORLD_SIZE out. */
CRES__PRIVATE cres_result cres__torch_twins(const cres_resolver *r, size_t first, cres_error *err) {
    static const char *const pairs[][2] = {{"WORLD_SIZE", "PET_NNODES"},
                                           {"RANK", "PET_NODE_RANK"},
                                           {"MASTER_ADDR", "PET_MASTER_ADDR"},
                                           {"MASTER_PORT", "PET_MASTER_PORT"}};
    size_t k;
    char qa[CRES__QUOTE_SIZE], qb[CRES__QUOTE_SIZE];
    for (k = first; k < 4; k++) {
        const char *a = cres_resolver_getenv(r, pairs[k][0]);
        const char *b = cres_resolver_getenv(r, pairs[k][1]);
        if (a && b && *b && strcmp(a, b) != 0)
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "torch: %s=%s but %s=%s: outside torchrun both describe this "
                              "process; run it under torchrun, or unset one",
                              pairs[k][0], cres__quote_str(qa, sizeof qa, a), pairs[k][1],
                              cres__quote_str(qb, sizeof qb, b));
    }
    return CRES_OK;
}

/* Kubeflow's PyTorchJob with nprocPerNode above 1 (kubeflow/training-operator
   pkg/controller.v1/pytorch/envvar.go at 2856aa0, setPodEnv: WORLD_SIZE = replicas x
   nprocPerNode, RANK = PET_NODE_RANK = the replica's index, PET_NNODES = replicas): the
   torch.distributed names describe the job and the node, and this process is the node's
   torchrun. Numbers of a process set beside them must fit that. */
CRES__PRIVATE cres_result cres__torch_pod(cres__coord *c, int nproc, cres_error *err) {
    const cres_resolver *r = &c->base;
    cres_launch_info *i = &c->info;
    const char *group = cres__env_set(r, "GROUP_RANK") ? "GROUP_RANK" : "NODE_RANK";
    int nodes = 0, node = 0;
    cres_result res = cres__torch_twins(r, 1, err);
    if (res == CRES_OK) res = cres__env_need(r, "PET_NNODES", 1, INT_MAX, &nodes, err);
    if (res == CRES_OK) res = cres__env_need(r, "PET_NODE_RANK", 0, INT_MAX, &node, err);
    if (res != CRES_OK) return res;
    if ((long long)nodes * nproc != i->world_size)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "torch: WORLD_SIZE=%d but PET_NNODES=%d nodes of PET_NPROC_PER_NODE=%d "
                          "processes are %lld",
                          i->world_size, nodes, nproc, (long long)nodes * nproc);
    if (i->local_rank != CRES_UNKNOWN)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "torch: LOCAL_RANK=%d is set, but PET_NPROC_PER_NODE=%d and "
                          "WORLD_SIZE=%d say this process starts its node's processes "
                          "(RANK=%d is the node's)",
                          i->local_rank, nproc, i->world_size, node);
    if (i->local_world_size != CRES_UNKNOWN && i->local_world_size != nproc)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "torch: LOCAL_WORLD_SIZE=%d but PET_NPROC_PER_NODE=%d",
                          i->local_world_size, nproc);
    if (i->num_nodes != CRES_UNKNOWN)
        res = cres__env_agrees(r, "PET_NNODES", i->num_nodes, "GROUP_WORLD_SIZE", err);
    if (res == CRES_OK && i->node_rank != CRES_UNKNOWN)
        res = cres__env_agrees(r, "PET_NODE_RANK", i->node_rank, group, err);
    if (res != CRES_OK) return res;
    c->source = "PET_NPROC_PER_NODE (Kubeflow's PyTorchJob: one torchrun per node)";
    return cres__torch_node_launch(c, nodes, node, nproc, err);
}

/* Outside torchrun, the torch.distributed names and PET_* (Kubeflow v1 sets both): one
   process per pod, which the others must say and which gives the node numbers (a keyword
   nprocPerNode counts one in the operator's WORLD_SIZE); more per pod, cres__torch_pod. */
CRES__PRIVATE cres_result cres__torch_agree(cres__coord *c, cres_error *err) {
    const cres_resolver *r = &c->base;
    int nproc = 1;
    cres_result res = cres__torch_nproc(r, &nproc, err);
    if (res == CRES_OK && nproc > 1) return cres__torch_pod(c, nproc, err);
    if (res == CRES_OK) res = cres__torch_twins(r, 0, err);
    if (res != CRES_OK || !cres__env_set(r, "PET_NNODES")) return res;
    /* PET_* equal to the process's names: a process per node, which the others must say */
    if (c->info.num_nodes != CRES_UNKNOWN &&
        (res = cres__env_agrees(r, "PET_NNODES", c->info.num_nodes, "GROUP_WORLD_SIZE", err)) !=
            CRES_OK)
        return res;
    if (c->info.node_rank != CRES_UNKNOWN &&
        (res = cres__env_agrees(r, "PET_NODE_RANK", c->info.node_rank,
                                cres__env_set(r, "GROUP_RANK") ? "GROUP_RANK" : "NODE_RANK",
                                err)) != CRES_OK)
        return res;
    if (c->info.local_world_size != CRES_UNKNOWN && c->info.local_world_size != 1)
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "torch: LOCAL_WORLD_SIZE=%d but PET_NNODES is WORLD_SIZE: a process "
                          "per node",
                          c->info.local_world_size);
    if (!cres__env_set(r, "PET_NODE_RANK")) return CRES_OK;
    if (c->info.node_rank == CRES_UNKNOWN) c->info.node_rank = c->info.rank;
    if (c->info.num_nodes == CRES_UNKNOWN) c->info.num_nodes = c->info.world_size;
    if (c->info.local_rank == CRES_UNKNOWN) c->info.local_rank = 0;
    if (c->info.local_world_size == CRES_UNKNOWN) c->info.local_world_size = 1;
    return CRES_OK;
}

/* Alibaba PAI-DLC's WORLD_SIZE counts nodes and its RANK is the node's, each node running
   NPROC_PER_NODE processes (alibabacloud.com/help/en/pai/general-environment-variables,
   Apr 2026): read as processes they would be wrong, so refused until it has a backend. */
CRES__PRIVATE cres_result cres__torch_not_pai(const cres__coord *c, cres_error *err) {
    const char *v = cres_resolver_getenv(&c->base, "NPROC_PER_NODE");
    char q[CRES__QUOTE_SIZE];
    if (!v || cres__is_blank(v) || strcmp(v, "1") == 0) return CRES_OK;
    return cres__fail(err, CRES_ERR_ENVIRONMENT,
                      "torch: NPROC_PER_NODE=%s is set, so WORLD_SIZE=%d may count nodes, not "
                      "processes, and RANK=%d be a node's (Alibaba PAI-DLC's variables, which "
                      "no backend reads yet); unset NPROC_PER_NODE if they count processes",
                      cres__quote_str(q, sizeof q, v), c->info.world_size, c->info.rank);
}

CRES__BYTE_ALIGNED static const char cres__torch_vtable_name[] = "torch";
static const cres_resolver_vtable cres__torch_vtable = {
    cres__torch_vtable_name, cres__coord_resolve, cres__coord_master, NULL, NULL, NULL,
    cres__coord_launch};

CRES_API cres_result cres_torch_resolver_create(const cres_torch_options *o, cres_resolver **out,
                                                cres_error *err) {
    const char *names[6] = {"WORLD_SIZE",       "RANK",       "LOCAL_RANK",
                            "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE"};
    static const char *const pet_names[6] = {"PET_NNODES", "PET_NODE_RANK", "LOCAL_RANK",
                                             "LOCAL_WORLD_SIZE", "PET_NODE_RANK", "PET_NNODES"};
    cres_torch_options none;
    cres__coord *c;
    const cres_resolver *r;
    cres_result res;
    int pet = 0;
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "torch: out is NULL");
    *out = NULL;
    if ((res = cres__coord_new(&cres__torch_vtable, o->config, &c, err)) != CRES_OK) return res;
    r = &c->base;
    if (!cres_resolver_getenv(r, "GROUP_RANK")) names[4] = "NODE_RANK";
    if (cres__env_set(r, "TORCHELASTIC_RUN_ID")) {
        c->source = "TORCHELASTIC_RUN_ID (torchrun)";
        res = cres__torch_workers(c, 1, err);
    } else if (cres__env_any(r, "MASTER_ADDR\0MASTER_PORT\0RANK\0WORLD_SIZE\0")) {
        c->source = "MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE";
        res = cres__torch_workers(c, 0, err);
        if (res == CRES_OK) res = cres__torch_not_pai(c, err);
        if (res == CRES_OK &&
            cres__env_any(r, "PET_NNODES\0PET_NODE_RANK\0PET_MASTER_ADDR\0PET_MASTER_PORT\0"
                             "PET_NPROC_PER_NODE\0"))
            res = cres__torch_agree(c, err);
    } else if (cres_resolver_getenv(r, "PET_NNODES") || cres_resolver_getenv(r, "PET_NODE_RANK") ||
               cres_resolver_getenv(r, "PET_MASTER_ADDR")) {
        c->source = "PET_* (one torchrun per node)";
        pet = 1;
        res = cres__torch_nodes(c, err);
    } else {
        c->source = "nothing";
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "torch: not a torch launch: none of TORCHELASTIC_RUN_ID, MASTER_ADDR, "
                         "RANK, WORLD_SIZE or PET_NNODES is set");
    }
    return cres__coord_finish(c, res, pet ? pet_names : names, o->task_type, o->task_id,
                              o->rpc_layer, out, err);
}
#else
CRES__LEFT_OUT(cres_torch_resolver_create, cres_torch_options, "torch", "CLUSTER_RESOLVER_NO_TORCH")
#endif /* CLUSTER_RESOLVER_NO_TORCH */

#ifndef CLUSTER_RESOLVER_NO_JAX
/* JAX_COORDINATOR_ADDRESS: "host:port" or "[v6]:port"; JAX_COORDINATOR_PORT when no port
   (and, when both give one, the same). */
CRES__PRIVATE cres_result cres__jax_coordinator(cres__coord *c, cres_error *err) {
    const char *v = cres_resolver_getenv(&c->base, "JAX_COORDINATOR_ADDRESS"), *host, *colon;
    size_t len;
    int port, other = -1;
    char q[CRES__QUOTE_SIZE];
    cres_result res;
    colon = strchr(v, ':');
    cres__quote_str(q, sizeof q, v);
    if (v[0] != '[' && colon && strchr(colon + 1, ':'))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "jax: JAX_COORDINATOR_ADDRESS=%s: an IPv6 address needs brackets "
                          "before its port (\"[fd00::1]:1234\")",
                          q);
    if (!cres__split_address(v, &host, &len, &port))
        return cres__fail(err, CRES_ERR_ENVIRONMENT,
                          "jax: JAX_COORDINATOR_ADDRESS=%s is not host:port", q);
    if (port == 0)
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "jax: JAX_COORDINATOR_ADDRESS=%s: port 0", q);
    res = cres__env_int(&c->base, "JAX_COORDINATOR_PORT", 1, 65535, &other, err);
    if (res == CRES_OK && port < 0 && other < 0)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "jax: JAX_COORDINATOR_ADDRESS=%s has no port and JAX_COORDINATOR_PORT "
                         "is not set",
                         q);
    if (res == CRES_OK)
        res = cres__coord_set_master(c, host, len, port < 0 ? other : port,
                                     "JAX_COORDINATOR_ADDRESS", v, err);
    if (res == CRES_OK && port > 0 && other > 0 && other != port)
        res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                         "jax: JAX_COORDINATOR_ADDRESS=%s but JAX_COORDINATOR_PORT=%d", q, other);
    return res;
}

CRES__BYTE_ALIGNED static const char cres__jax_vtable_name[] = "jax";
static const cres_resolver_vtable cres__jax_vtable = {
    cres__jax_vtable_name, cres__coord_resolve, cres__coord_master, NULL, NULL, NULL,
    cres__coord_launch};

CRES_API cres_result cres_jax_resolver_create(const cres_jax_options *o, cres_resolver **out,
                                              cres_error *err) {
    static const char *const need[] = {"JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES",
                                       "JAX_PROCESS_ID", NULL};
    static const char *const names[6] = {"JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "", "", "", ""};
    cres_jax_options none;
    cres__coord *c;
    cres_result res;
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "jax: out is NULL");
    *out = NULL;
    if ((res = cres__coord_new(&cres__jax_vtable, o->config, &c, err)) != CRES_OK) return res;
    c->source = "JAX_COORDINATOR_ADDRESS";
    res = cres__env_require(&c->base, need, err);
    if (res == CRES_OK) res = cres__jax_coordinator(c, err);
    if (res == CRES_OK)
        res = cres__env_need(&c->base, "JAX_NUM_PROCESSES", 1, INT_MAX, &c->info.world_size, err);
    if (res == CRES_OK)
        res = cres__env_need(&c->base, "JAX_PROCESS_ID", 0, INT_MAX, &c->info.rank, err);
    return cres__coord_finish(c, res, names, o->task_type, o->task_id, o->rpc_layer, out, err);
}
#else
CRES__LEFT_OUT(cres_jax_resolver_create, cres_jax_options, "jax", "CLUSTER_RESOLVER_NO_JAX")
#endif /* CLUSTER_RESOLVER_NO_JAX */

#ifndef CLUSTER_RESOLVER_NO_AWSBATCH
/* A dotted IPv4 address, as AWS Batch gives the main node's. */
CRES__PRIVATE int cres__is_ipv4(const char *s) {
    int parts = 0;
    while (parts < 4) {
        size_t n = strspn(s, cres__decimal_digits);
        long long v;
        if (n == 0 || n > 3 || cres__parse_decimal(s, n, &v) != 1 || v > 255) return 0;
        s += n;
        parts++;
        if (parts < 4 && *s++ != '.') return 0;
    }
    return *s == '\0';
}

CRES__BYTE_ALIGNED static const char cres__awsbatch_vtable_name[] = "awsbatch";
static const cres_resolver_vtable cres__awsbatch_vtable = {
    cres__awsbatch_vtable_name, cres__coord_resolve, cres__coord_master, NULL, NULL, NULL,
    cres__coord_launch};

/* One process per node; the main node is rank 0, the others follow in node order. */
CRES_API cres_result cres_awsbatch_resolver_create(const cres_awsbatch_options *o,
                                                   cres_resolver **out, cres_error *err) {
    static const char *const need[] = {"AWS_BATCH_JOB_NODE_INDEX", "AWS_BATCH_JOB_NUM_NODES",
                                       "AWS_BATCH_JOB_MAIN_NODE_INDEX", NULL};
    static const char *const names[6] = {
        "AWS_BATCH_JOB_NUM_NODES", "AWS_BATCH_JOB_NODE_INDEX", "", "",
        "AWS_BATCH_JOB_NODE_INDEX", "AWS_BATCH_JOB_NUM_NODES"};
    static const char *const ip_var = "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS";
    cres_awsbatch_options none;
    cres__coord *c;
    cres_result res;
    int node = 0, nodes = 0, main_node = 0, port;
    const char *ip, *host;
    char q[CRES__QUOTE_SIZE];
    if (!o) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "awsbatch: out is NULL");
    *out = NULL;
    if (o->port < 0 || o->port > 65535)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "awsbatch: port %d is not 1 to 65535",
                          o->port);
    port = o->port ? o->port : 29500;
    if ((res = cres__coord_new(&cres__awsbatch_vtable, o->config, &c, err)) != CRES_OK) return res;
    c->source = "AWS_BATCH_JOB_NODE_INDEX";
    res = cres__env_require(&c->base, need, err);
    if (res == CRES_OK)
        res = cres__env_need(&c->base, "AWS_BATCH_JOB_NUM_NODES", 1, INT_MAX, &nodes, err);
    if (res == CRES_OK)
        res = cres__env_need(&c->base, "AWS_BATCH_JOB_NODE_INDEX", 0, INT_MAX, &node, err);
    if (res == CRES_OK)
        res = cres__env_need(&c->base, "AWS_BATCH_JOB_MAIN_NODE_INDEX", 0, nodes - 1, &main_node,
                             err);
    if (res == CRES_OK && node < nodes) {
        ip = cres_resolver_getenv(&c->base, ip_var);
        host = ip && *ip ? ip : o->main_host ? o->main_host : "localhost";
        if (ip && *ip && !cres__is_ipv4(ip))
            res = cres__fail(err, CRES_ERR_ENVIRONMENT, "awsbatch: %s=%s is not an IPv4 address",
                             ip_var, cres__quote_str(q, sizeof q, ip));
        else if ((!ip || !*ip) && node != main_node) /* only the main node goes without it */
            res = cres__fail(err, CRES_ERR_ENVIRONMENT,
                             "awsbatch: AWS_BATCH_JOB_NODE_INDEX=%d is not the main node (%d), "
                             "but %s is not set",
                             node, main_node, ip_var);
        else
            res = cres__coord_set_master(c, host, strlen(host), port,
                                         ip && *ip ? ip_var : "options.main_host", host, err);
    }
    c->info.world_size = c->info.num_nodes = nodes;
    c->info.rank = node == main_node ? 0 : node < main_node ? node + 1 : node;
    if (node >= nodes) c->info.rank = node; /* reported as not below the node count */
    c->info.node_rank = c->info.rank;
    c->info.local_rank = 0;
    c->info.local_world_size = 1;
    return cres__coord_finish(c, res, names, o->task_type, o->task_id, o->rpc_layer, out, err);
}
#else
CRES__LEFT_OUT(cres_awsbatch_resolver_create, cres_awsbatch_options, "awsbatch",
               "CLUSTER_RESOLVER_NO_AWSBATCH")
#endif /* CLUSTER_RESOLVER_NO_AWSBATCH */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Auto-detection                                                                    >>auto */

#ifndef CLUSTER_RESOLVER_NO_AUTO
/* An Indexed Job's pod is named for its Job: hostname "<job>-<index>" gives the selector. */
CRES__PRIVATE int cres__auto_indexed_job(const cres_resolver *probe, char *selector, size_t cap) {
    const char *index = cres_resolver_getenv(probe, "JOB_COMPLETION_INDEX");
    const char *host = cres_resolver_getenv(probe, cres__hostname_var);
    size_t h, i;
    if (!cres__env_set(probe, "KUBERNETES_SERVICE_HOST") || !index || !host) return 0;
    h = strlen(host);
    i = strlen(index);
    if (!i || h < i + 2 || host[h - i - 1] != '-' || strcmp(host + h - i, index) != 0) return 0;
    return snprintf(selector, cap, "job-name=%.*s", (int)(h - i - 1), host) < (int)cap;
}

/* One step of auto's order: the backend, and why it applies. */
typedef struct cres__auto_pick {
    const char *backend;
    const char *why;
} cres__auto_pick;

/* The steps of the documented order that apply, in that order. */
typedef struct cres__auto_picks {
    size_t n;
    cres__auto_pick step[32]; /* more than cres__auto_steps() has */
} cres__auto_picks;

/* Volcano's svc plugin alone (no env plugin, so no VC_TASK_INDEX): a VC_<TASK>_HOSTS. */
CRES__PRIVATE const char *cres__auto_vc_hosts(const cres_resolver *probe) {
    const char *v;
    size_t i;
    for (i = 0; (v = cres_resolver_env_at(probe, i)) != NULL; i++) {
        size_t n = strcspn(v, "=");
        if (n > 9 && strncmp(v, "VC_", 3) == 0 && strncmp(v + n - 6, "_HOSTS", 6) == 0)
            return "VC_<TASK>_HOSTS";
    }
    return NULL;
}

/* torch.distributed's names outside torchrun: RANK, or a WORLD_SIZE above one. In a
   scheduler's job script or allocation shell WORLD_SIZE alone is the user's export for the
   launch to come (`export WORLD_SIZE=32` before `srun torchrun`): a process has a RANK. */
CRES__PRIVATE const char *cres__auto_torch_plain(const cres_resolver *probe) {
    const char *size = cres_resolver_getenv(probe, "WORLD_SIZE");
    if (cres__env_set(probe, "RANK")) return "RANK is set";
    if (cres__env_any(probe, cres__job_vars)) return NULL;
    if (size && !cres__is_blank(size) && strcmp(size, "1") != 0) return "WORLD_SIZE is set";
    return NULL;
}

/* auto's documented order, innermost launcher first: per step its backend, then a name list
   of variables, the first set one saying why the step applies. A step marked with a digit
   (CRES__AUTO_CHECKED) is decided by cres__auto_check's case of that digit, from the
   first set variable (NULL: none is) or, with no variables, from the environment alone.
   One literal, not code per step (see "Footprint" in >>impl); an empty backend ends it. */
#define CRES__AUTO_STEP(backend, variables) backend "\0" variables "\0"
#define CRES__AUTO_CHECKED(digit, backend, variables) #digit backend "\0" variables "\0"
CRES__BYTE_ALIGNED static const char cres__auto_order[] =
    CRES__AUTO_STEP("tfconfig", "TF_CONFIG\0")
    CRES__AUTO_STEP("torch", "TORCHELASTIC_RUN_ID\0")
    CRES__AUTO_CHECKED(1, "mpi", "OMPI_COMM_WORLD_SIZE\0MV2_COMM_WORLD_SIZE\0PMI_SIZE\0PMIX_RANK\0")
    /* a scheduler's job step, or a rank on its allocation: the launcher of this process */
    CRES__AUTO_STEP("slurm", "SLURM_STEP_NODELIST\0")
    CRES__AUTO_CHECKED(2, "pbs", "PBS_NODEFILE\0PBS_JOBID\0")
    CRES__AUTO_CHECKED(3, "lsf", "LSB_DJOB_RANKFILE\0LSB_MCPU_HOSTS\0LSB_JOBID\0")
    CRES__AUTO_STEP("flux", "FLUX_TASK_RANK\0")
    CRES__AUTO_STEP("vertex", "CLUSTER_SPEC\0")
    CRES__AUTO_STEP("sagemaker", "SM_HOSTS\0SM_CURRENT_HOST\0")
    CRES__AUTO_CHECKED(4, "sagemaker", "")
    CRES__AUTO_STEP("skypilot", "SKYPILOT_NODE_IPS\0SKYPILOT_NODE_RANK\0")
    CRES__AUTO_CHECKED(5, "volcano", "VC_TASK_INDEX\0VK_TASK_INDEX\0")
    CRES__AUTO_STEP("lws", "LWS_LEADER_ADDRESS\0LWS_WORKER_INDEX\0LWS_GROUP_SIZE\0")
    CRES__AUTO_STEP("awsbatch", "AWS_BATCH_JOB_NODE_INDEX\0AWS_BATCH_JOB_NUM_NODES\0")
    CRES__AUTO_CHECKED(6, "torch", "")
    CRES__AUTO_STEP("jax", "JAX_COORDINATOR_ADDRESS\0JAX_NUM_PROCESSES\0JAX_PROCESS_ID\0")
    CRES__AUTO_STEP("torch", "PET_NNODES\0PET_NODE_RANK\0PET_MASTER_ADDR\0")
    /* a scheduler's allocation with no rank of this process's (a job script, an allocation
       shell): the launchers above may run inside it, as DeepSpeed's does in an sbatch script */
    CRES__AUTO_CHECKED(7, "slurm", "SLURM_JOB_ID\0SLURM_JOBID\0")
    CRES__AUTO_STEP("pbs", "PBS_NODEFILE\0PBS_JOBID\0")
    CRES__AUTO_STEP("lsf", "LSB_DJOB_RANKFILE\0LSB_MCPU_HOSTS\0LSB_JOBID\0")
    CRES__AUTO_STEP("sge", "PE_HOSTFILE\0")
    CRES__AUTO_STEP("flux", "FLUX_JOB_ID\0FLUX_ENCLOSING_ID\0")
    CRES__AUTO_STEP("tpu", "TPU_PROCESS_ADDRESSES\0TPU_WORKER_HOSTNAMES\0TPU_WORKER_ID\0"
                           "TPU_NAME\0KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS\0TPU_CONFIG\0")
    CRES__AUTO_CHECKED(8, "kubernetes", "");
#undef CRES__AUTO_CHECKED
#undef CRES__AUTO_STEP

/* Why a checked step of cres__auto_order applies (NULL: it does not); `set` is the first of
   its variables that is set. */
CRES__PRIVATE const char *cres__auto_check(const cres_resolver *probe, char digit,
                                           const char *set, char *selector, size_t cap) {
    FILE *f;
    switch (digit) {
    case '1': /* Flux's own PMI and Cray PALS's mpiexec set PMI_RANK and PMI_SIZE for every
                 task: flux and pbs read those jobs (PALS's nodes and local ranks are not
                 MPICH's names) */
        if (set && strcmp(set, "PMI_SIZE") == 0 &&
            (cres__env_set(probe, "FLUX_TASK_RANK") ||
             (cres__env_set(probe, "PALS_RANKID") && cres__env_set(probe, "PBS_NODEFILE"))))
            return NULL;
        return set;
    case '2': /* in a PBS job: PALS's ranks, or pbsdsh's tasks */
        if (!set) return NULL;
        return cres__env_set(probe, "PALS_RANKID") ? "PALS_RANKID"
               : cres__pbsdsh_task(probe)          ? "PBS_VNODENUM"
                                                   : NULL;
    case '3': /* in an LSF job: jsrun's ranks */
        return set && cres__env_set(probe, "JSM_NAMESPACE_RANK") ? "JSM_NAMESPACE_RANK" : NULL;
    case '4':
        if ((f = fopen(CRES__SM_RESOURCE_CONFIG, "rb")) == NULL) return NULL;
        fclose(f);
        return CRES__SM_RESOURCE_CONFIG;
    case '5': return set ? set : cres__auto_vc_hosts(probe);
    case '6': return cres__auto_torch_plain(probe);
    case '7':
        return set ? "SLURM_JOB_ID (an sbatch script or an salloc shell: the job's allocation)"
                   : NULL;
    default: /* '8' */
        return cres__auto_indexed_job(probe, selector, cap)
                   ? "KUBERNETES_SERVICE_HOST and JOB_COMPLETION_INDEX (an Indexed Job)"
                   : NULL;
    }
}

/* Every step of the documented order that applies, in that order. The first wins; auto's log
   line names the others. */
CRES__PRIVATE void cres__auto_steps(const cres_resolver *probe, char *selector, size_t cap,
                                    cres__auto_picks *s) {
    const char *p = cres__auto_order, *names, *why;
    s->n = 0;
    while (*p) {
        char digit = *p >= '0' && *p <= '9' ? *p++ : '\0';
        const char *backend = p;
        names = cres__next_name(backend);
        why = cres__env_any(probe, names);
        if (digit) why = cres__auto_check(probe, digit, why, selector, cap);
        if (why && s->n < sizeof s->step / sizeof s->step[0]) {
            s->step[s->n].backend = backend;
            s->step[s->n++].why = why;
        }
        for (p = names; *p; p = cres__next_name(p)) continue;
        p++; /* past the list's empty name */
    }
}

/* Rule 1: a launcher's variable that says this process is one of several rules out the
   one-task answer. Per launcher, its variables, each with what says so: "" its being set;
   ">1" a count (the value's first word) other than 1; ">0" an index other than 0; ",", ";"
   or "\n" a list of more than one entry so separated. A value that is no number says so
   too. One literal, not pointers (a table of pointers costs a relocation each): a launcher,
   then its variables, each after its mark (a variable's name starts with a letter or "_"),
   up to an empty variable; an empty launcher ends it.
   Left out: torchx's TORCHX_RANK0_HOST and Determined's DET_CHIEF_IP (set for a single
   process too), Google Cloud Batch's BATCH_HOSTS_FILE (a file; BATCH_TASK_COUNT says as
   much). */
#define CRES__SEVERAL(launcher, variables) launcher "\0" variables "\0"
#define CRES__SAYS(variable, how) how variable "\0"
CRES__BYTE_ALIGNED static const char cres__several[] =
    /* torchrun's workers (torch/distributed/elastic/agent/server/local_elastic_agent.py);
       LOCAL_RANK and NODE_RANK also Ray Train, AzureML, DeepSpeed's launch.py and Lightning's
       subprocess launcher (src/lightning/fabric/strategies/launchers/subprocess_script.py) */
    CRES__SEVERAL("torch.distributed", CRES__SAYS("LOCAL_RANK", "") CRES__SAYS("NODE_RANK", ""))
        CRES__SEVERAL("torchrun",
                      CRES__SAYS("GROUP_RANK", "") CRES__SAYS("GROUP_WORLD_SIZE", "")
                          CRES__SAYS("LOCAL_WORLD_SIZE", "") CRES__SAYS("ROLE_RANK", ""))
    /* Kubeflow's PET_* (training-operator pkg/controller.v1/pytorch/envvar.go at 2856aa0) */
    CRES__SEVERAL("Kubeflow",
                  CRES__SAYS("PET_NPROC_PER_NODE", "") CRES__SAYS("PET_MASTER_PORT", ""))
    /* MPI: Open MPI 4.1 and MPICH's Hydra as run here (mpirun -np 4 env, mpiexec.hydra -n 3
       env); MVAPICH's MV2_COMM_WORLD_*; Cray PALS (PALS_RANKID, PMI_LOCAL_RANK); the host
       files kubeflow/mpi-operator gives its launchers (pkg/controller/mpi_job_controller.go
       at cbe4f8a: ompiEnvVars, intelEnvVars, mpichEnvVars) */
    CRES__SEVERAL("MPI (PMI)", CRES__SAYS("PMI_RANK", ""))
        CRES__SEVERAL("Cray PALS", CRES__SAYS("PMI_LOCAL_RANK", "") CRES__SAYS("PALS_RANKID", ""))
            CRES__SEVERAL("MPICH Hydra",
                          CRES__SAYS("MPI_LOCALRANKID", "") CRES__SAYS("MPI_LOCALNRANKS", ">1"))
                CRES__SEVERAL("Open MPI",
                              CRES__SAYS("OMPI_COMM_WORLD_RANK", "")
                                  CRES__SAYS("OMPI_COMM_WORLD_LOCAL_RANK", "")
                                      CRES__SAYS("OMPI_COMM_WORLD_NODE_RANK", "")
                                          CRES__SAYS("OMPI_COMM_WORLD_LOCAL_SIZE", ">1"))
                    CRES__SEVERAL("MVAPICH", CRES__SAYS("MV2_COMM_WORLD_RANK", "")
                                                 CRES__SAYS("MV2_COMM_WORLD_LOCAL_RANK", "")
                                                     CRES__SAYS("MV2_COMM_WORLD_LOCAL_SIZE", ">1"))
                        CRES__SEVERAL("Open MPI", CRES__SAYS("OMPI_MCA_orte_default_hostfile", ""))
                            CRES__SEVERAL("Intel MPI", CRES__SAYS("I_MPI_HYDRA_HOST_FILE", ""))
                                CRES__SEVERAL("MPICH Hydra", CRES__SAYS("HYDRA_HOST_FILE", ""))
    /* schedulers: jsrun, pbsdsh (pbsdsh(1)), Slurm (a step's SLURM_PROCID; salloc(1) at
       000729e: SLURM_JOB_NUM_NODES, and SLURM_NTASKS with -n, in the allocation's shell) */
    CRES__SEVERAL("jsrun", CRES__SAYS("JSM_NAMESPACE_RANK", ""))
        CRES__SEVERAL("pbsdsh", CRES__SAYS("PBS_VNODENUM", ""))
            CRES__SEVERAL("Slurm", CRES__SAYS("SLURM_PROCID", "") CRES__SAYS("SLURM_NTASKS", ">1")
                                       CRES__SAYS("SLURM_JOB_NUM_NODES", ">1"))
    /* platforms: AWS Batch (mnp-env-vars.html), GKE TPU multislice, Kubernetes Indexed Jobs */
    CRES__SEVERAL("AWS Batch", CRES__SAYS("AWS_BATCH_JOB_MAIN_NODE_INDEX", ""))
        CRES__SEVERAL("TPU multislice", CRES__SAYS("MEGASCALE_SLICE_ID", ""))
            CRES__SEVERAL("Kubernetes Indexed Job", CRES__SAYS("JOB_COMPLETION_INDEX", ""))
    /* horovodrun --gloo (horovod/runner/gloo_run.py at 0ad076e, create_slot_env_vars) */
    CRES__SEVERAL("Horovod", CRES__SAYS("HOROVOD_RANK", ">0") CRES__SAYS("HOROVOD_SIZE", ">1"))
    /* paddle.distributed.launch (python/paddle/distributed/launch/controllers/collective.py
       at 009da4d); PADDLE_NNODES also Kubeflow's PaddleJob (training-operator
       pkg/controller.v1/paddlepaddle/envvar.go at 2856aa0) */
    CRES__SEVERAL(
        "PaddlePaddle",
        CRES__SAYS("PADDLE_TRAINER_ID", ">0") CRES__SAYS("PADDLE_TRAINERS_NUM", ">1")
            CRES__SAYS("PADDLE_TRAINER_ENDPOINTS", ",") CRES__SAYS("PADDLE_GLOBAL_RANK", ">0")
                CRES__SAYS("PADDLE_GLOBAL_SIZE", ">1") CRES__SAYS("PADDLE_NNODES", ">1"))
    /* DeepSpeed's launch.py (deepspeed/launcher/launch.py at edaa722) */
    CRES__SEVERAL("DeepSpeed", CRES__SAYS("CROSS_RANK", ">0") CRES__SAYS("CROSS_SIZE", ">1")
                                   CRES__SAYS("LOCAL_SIZE", ">1"))
    /* Alibaba PAI-DLC (alibabacloud.com/help/en/pai/general-environment-variables, Apr 2026) */
    CRES__SEVERAL("PAI-DLC", CRES__SAYS("NPROC_PER_NODE", ">1"))
    /* Google Cloud Batch (GoogleCloudPlatform/nodejs-docs-samples
       batch/create/create_with_container_no_mounting.js at 092e051; batch-samples
       mpi-container/README.md at d9e5208) */
    CRES__SEVERAL("Google Cloud Batch",
                  CRES__SAYS("BATCH_TASK_INDEX", ">0") CRES__SAYS("BATCH_TASK_COUNT", ">1")
                      CRES__SAYS("BATCH_NODE_INDEX", ">0"))
    /* Azure Batch multi-instance tasks (learn.microsoft.com/azure/batch/
       batch-compute-node-environment-variables: "multi-instance primary and subtasks"), and
       AzureML's MPI jobs (DeepSpeed deepspeed/comm/comm.py, in_aml) */
    CRES__SEVERAL("Azure Batch",
                  CRES__SAYS("AZ_BATCH_HOST_LIST", ",") CRES__SAYS("AZ_BATCH_NODE_LIST", ";")
                      CRES__SAYS("AZ_BATCH_MASTER_NODE", "")
                          CRES__SAYS("AZ_BATCH_IS_CURRENT_NODE_MASTER", "")
                              CRES__SAYS("CCP_NODES", ">1"))
        CRES__SEVERAL("AzureML", CRES__SAYS("AZ_BATCHAI_MPI_MASTER_NODE", ""))
    /* HTCondor's parallel universe (src/condor_starter.V6.1/parallel_proc.cpp at 0d7da9f) */
    CRES__SEVERAL("HTCondor", CRES__SAYS("_CONDOR_PROCNO", ">0") CRES__SAYS("_CONDOR_NPROCS", ">1"))
    /* SkyPilot's setup stage (docs/source/running-jobs/environment-variables.rst at 25df97f) */
    CRES__SEVERAL("SkyPilot setup", CRES__SAYS("SKYPILOT_SETUP_NODE_RANK", ">0")
                                        CRES__SAYS("SKYPILOT_SETUP_NODE_IPS", "\n"))
        CRES__SEVERAL("SkyPilot", CRES__SAYS("SKYPILOT_NUM_NODES", ">1"))
    /* Kubeflow Trainer's XGBoost runtime (pkg/runtime/framework/plugins/xgboost/xgboost.go
       at 8e9e5e6) */
    CRES__SEVERAL("Kubeflow XGBoost",
                  CRES__SAYS("DMLC_TASK_ID", ">0") CRES__SAYS("DMLC_NUM_WORKER", ">1"))
    /* torchx's schedulers (torchx/schedulers/aws_batch_scheduler.py at b72ba03;
       gcp_batch_scheduler.py at 1f79761) */
    CRES__SEVERAL("torchx",
                  CRES__SAYS("TORCHX_ROLE_IDX", ">0") CRES__SAYS("TORCHX_REPLICA_IDX", ">0"))
    /* Determined on Kubernetes (master/internal/rm/kubernetesrm/spec.go at c1e9c6d) */
    CRES__SEVERAL("Determined", CRES__SAYS("DET_KUBERNETES_JOB_PARALLELISM", ">1"))
    /* Nomad (developer.hashicorp.com/nomad/docs/runtime/environment): no count is given */
    CRES__SEVERAL("Nomad", CRES__SAYS("NOMAD_ALLOC_INDEX", ">0"))
    /* Metaflow's @parallel (Netflix/metaflow metaflow/plugins/parallel_decorator.py and
       current.py; on Kubernetes MF_WORLD_SIZE) */
    CRES__SEVERAL("Metaflow", CRES__SAYS("MF_PARALLEL_NUM_NODES", ">1") CRES__SAYS(
                                  "MF_PARALLEL_NODE_INDEX", ">0") CRES__SAYS("MF_WORLD_SIZE", ">1"))
    /* NVIDIA Base Command Platform's multi-node jobs (docs.nvidia.com/base-command-platform,
       "Multinode jobs": NGC_ARRAY_SIZE nodes, NGC_ARRAY_INDEX this one's) */
    CRES__SEVERAL("NVIDIA Base Command",
                  CRES__SAYS("NGC_ARRAY_SIZE", ">1") CRES__SAYS("NGC_ARRAY_INDEX", ">0"));
#undef CRES__SAYS
#undef CRES__SEVERAL

/* Whether value v of a cres__several entry says one of several (`how`, its mark, as there,
   up to the variable's name). */
CRES__PRIVATE int cres__says_several(const char *v, const char *how, const char *name) {
    size_t len, entries = 0;
    long long n;
    if (how == name) return 1;
    if (*how == '>') { /* a number other than the one a process alone has */
        v += strspn(v, " \t\r\n");
        len = strcspn(v, " \t\r\n");
        return cres__parse_decimal(v, len, &n) != 1 || n != how[1] - '0';
    }
    while (entries < 2 && *v) { /* entries not blank */
        for (len = 0; v[len] && v[len] != *how; len++) continue;
        if (strspn(v, " \t\r\n") < len) entries++;
        v += len + (v[len] != '\0');
    }
    return entries > 1;
}

CRES__PRIVATE cres_result cres__auto_not_alone(const cres_resolver *probe, cres_error *err) {
    const char *launcher, *name, *how, *v;
    char q[CRES__QUOTE_SIZE];
    for (launcher = cres__several; *launcher; launcher = how + 1) {
        for (how = cres__next_name(launcher); *how; how = cres__next_name(how)) {
            name = how + strspn(how, ">01,;\n");
            v = cres_resolver_getenv(probe, name);
            if (!v || cres__is_blank(v) || !cres__says_several(v, how, name))
                continue;
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "auto: %s=%s (%s) is set: this process may be one of several, but "
                              "no launcher's variables are complete; set "
                              "CLUSTER_RESOLVER_BACKEND=local to run alone",
                              name, cres__quote_str(q, sizeof q, v), launcher);
        }
    }
    return CRES_OK;
}

/* Whether steps[0..i) already name the backend. */
CRES__PRIVATE int cres__auto_seen(const cres__auto_pick *steps, size_t i, const char *backend) {
    while (i--)
        if (strcmp(steps[i].backend, backend) == 0) return 1;
    return 0;
}

/* Picks a backend in the documented order, NULL when no step applies; *why says what decided
   and what it passed over. */
CRES__PRIVATE const char *cres__auto_detect(const cres_resolver *probe, char *selector, size_t cap,
                                            char *why, size_t why_cap) {
    cres__auto_picks s;
    const cres__auto_pick *steps = s.step;
    const char *sep = "; passed over ";
    size_t i, len;
    cres__auto_steps(probe, selector, cap, &s);
    if (!s.n) return NULL;
    len = (size_t)snprintf(why, why_cap, "%s", steps[0].why);
    for (i = 1; i < s.n && len < why_cap; i++) {
        if (cres__auto_seen(steps, i, steps[i].backend)) continue;
        len += (size_t)snprintf(why + len, why_cap - len, "%s%s (%s)", sep, steps[i].backend,
                                steps[i].why);
        sep = ", ";
    }
    return steps[0].backend;
}

/* The backends auto knows that this build left out, each with the switch that did
   (CLUSTER_RESOLVER_NO_ and the second name): a name list of pairs (see "Footprint" in
   >>impl). */
CRES__BYTE_ALIGNED static const char cres__left_out_table[] =
#ifdef CLUSTER_RESOLVER_NO_TFCONFIG
    "tfconfig\0TFCONFIG\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_MPI
    "mpi\0MPI\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_SLURM
    "slurm\0SLURM\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_SAGEMAKER
    "sagemaker\0SAGEMAKER\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_TPU
    "tpu\0TPU\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_K8S
    "kubernetes\0K8S\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_PBS
    "pbs\0PBS\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_LSF
    "lsf\0LSF\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_SGE
    "sge\0SGE\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_FLUX
    "flux\0FLUX\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_VERTEX
    "vertex\0VERTEX\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_SKYPILOT
    "skypilot\0SKYPILOT\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_VOLCANO
    "volcano\0VOLCANO\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_LWS
    "lws\0LWS\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_TORCH
    "torch\0TORCH\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_JAX
    "jax\0JAX\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_AWSBATCH
    "awsbatch\0AWSBATCH\0"
#endif
#ifdef CLUSTER_RESOLVER_NO_LOCAL
    "local\0LOCAL\0"
#endif
    "";

/* The switch that left a backend out of this build (what follows CLUSTER_RESOLVER_NO_), or
   NULL. */
CRES__PRIVATE const char *cres__left_out(const char *backend) {
    const char *p;
    if (strcmp(backend, "k8s") == 0) backend = "kubernetes";
    for (p = cres__left_out_table; *p; p = cres__next_name(cres__next_name(p)))
        if (strcmp(backend, p) == 0) return cres__next_name(p);
    return NULL;
}

/* "; left out of this build: slurm kubernetes", or "" when nothing is. */
CRES__PRIVATE const char *cres__left_out_list(char *buf, size_t cap) {
    const char *p;
    size_t n = 0;
    buf[0] = '\0';
    for (p = cres__left_out_table; *p && n < cap; p = cres__next_name(cres__next_name(p)))
        n += (size_t)snprintf(buf + n, cap - n, "%s %s",
                              p == cres__left_out_table ? "; left out of this build:" : "", p);
    return buf;
}

/* The caller's options for a backend (`given`; NULL: zero) into opt, with auto's config
   where they give none: every options struct starts with its config. */
CRES__PRIVATE void cres__auto_options(void *opt, const void *given, size_t size,
                                      const cres_config *config) {
    const cres_config **own = (const cres_config **)opt;
    if (given)
        memcpy(opt, given, size);
    else
        memset(opt, 0, size);
    if (!*own) *own = config;
}

/* A backend by name (its vtable's, not a literal of its own: see "Footprint" in >>impl): the
   caller's options for it (else zero), auto's config where they give none, and auto's port in
   `field` (port or port_base; `config` for a backend without one) where they give none. */
#define CRES__AUTO_OPTIONS(name, opt) \
    cres_##name##_options opt;        \
    cres__auto_options(&opt, o->name, sizeof opt, o->config)
#define CRES__AUTO_CREATE(name, field)                                                         \
    if (strcmp(backend, cres__##name##_vtable_name) == 0) {                                    \
        CRES__AUTO_OPTIONS(name, opt);                                                         \
        CRES__AUTO_##field(opt);                                                               \
        return cres_##name##_resolver_create(&opt, r, err);                                    \
    }
#define CRES__AUTO_port(opt) \
    if (!opt.port) opt.port = o->port
#define CRES__AUTO_port_base(opt) \
    if (!opt.port_base) opt.port_base = o->port
#define CRES__AUTO_config(opt) (void)0

CRES__PRIVATE cres_result cres__auto_create(const char *backend, const cres_auto_options *o,
                                            const char *selector, const char *why,
                                            const cres_resolver *probe, cres_resolver **r,
                                            cres_error *err) {
    char q[CRES__QUOTE_SIZE];
    (void)selector, (void)probe;
#ifndef CLUSTER_RESOLVER_NO_TFCONFIG
    CRES__AUTO_CREATE(tfconfig, config)
#endif
#ifndef CLUSTER_RESOLVER_NO_LOCAL
    CRES__AUTO_CREATE(local, port)
#endif
#ifndef CLUSTER_RESOLVER_NO_SLURM
    CRES__AUTO_CREATE(slurm, port_base)
#endif
#ifndef CLUSTER_RESOLVER_NO_MPI
    CRES__AUTO_CREATE(mpi, port_base)
#endif
#ifndef CLUSTER_RESOLVER_NO_SAGEMAKER
    CRES__AUTO_CREATE(sagemaker, port)
#endif
#ifndef CLUSTER_RESOLVER_NO_TPU
    if (strcmp(backend, "tpu") == 0) {
        CRES__BYTE_ALIGNED static const char named[] =
            "TPU_NAME\0KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS\0TPU_CONFIG\0";
        CRES__AUTO_OPTIONS(tpu, t);
        if (!t.tpu && !cres__env_any(probe, named)) t.tpu = "local"; /* the TPU VM we are on */
        return cres_tpu_resolver_create(&t, r, err);
    }
#endif
#ifndef CLUSTER_RESOLVER_NO_K8S
    if (strcmp(backend, "kubernetes") == 0 || strcmp(backend, "k8s") == 0) {
        cres_k8s_job_selector job;
        CRES__AUTO_OPTIONS(k8s, k);
        if (!k.port) k.port = o->port;
        job.job = "worker";
        job.selector = selector;
        if (!k.members) k.members = o->k8s_members;
        if (*selector && !k.jobs) { /* an Indexed Job's pod: its Job, or its JobSet */
            k.jobs = &job;
            k.jobs_count = 1;
            k.follow_jobset = 1;
#ifndef CLUSTER_RESOLVER_NO_K8S_JOB
            if (!k.members) k.members = CRES_K8S_MEMBERS_JOB;
#endif
        }
        return cres_k8s_resolver_create(&k, r, err);
    }
#endif
#ifndef CLUSTER_RESOLVER_NO_PBS
    CRES__AUTO_CREATE(pbs, port_base)
#endif
#ifndef CLUSTER_RESOLVER_NO_LSF
    CRES__AUTO_CREATE(lsf, port_base)
#endif
#ifndef CLUSTER_RESOLVER_NO_SGE
    CRES__AUTO_CREATE(sge, port_base)
#endif
#ifndef CLUSTER_RESOLVER_NO_FLUX
    CRES__AUTO_CREATE(flux, port_base)
#endif
#ifndef CLUSTER_RESOLVER_NO_VERTEX
    CRES__AUTO_CREATE(vertex, config)
#endif
#ifndef CLUSTER_RESOLVER_NO_SKYPILOT
    CRES__AUTO_CREATE(skypilot, port)
#endif
#ifndef CLUSTER_RESOLVER_NO_VOLCANO
    CRES__AUTO_CREATE(volcano, port)
#endif
#ifndef CLUSTER_RESOLVER_NO_LWS
    CRES__AUTO_CREATE(lws, port)
#endif
#ifndef CLUSTER_RESOLVER_NO_TORCH
    CRES__AUTO_CREATE(torch, config)
#endif
#ifndef CLUSTER_RESOLVER_NO_JAX
    CRES__AUTO_CREATE(jax, config)
#endif
#ifndef CLUSTER_RESOLVER_NO_AWSBATCH
    CRES__AUTO_CREATE(awsbatch, port)
#endif
    return cres__fail(err, CRES_ERR_UNSUPPORTED,
                      "auto: unknown backend %s, %s (known: tfconfig, torch, mpi, slurm, pbs, lsf, "
                      "sge, flux, vertex, sagemaker, skypilot, volcano, lws, awsbatch, jax, tpu, "
                      "kubernetes, local)",
                      cres__quote_str(q, sizeof q, backend), why);
}

CRES_API cres_result cres_auto_resolver_create(const cres_auto_options *o, cres_resolver **out,
                                               cres_error *err) {
    static cres_auto_options none; /* the defaults: see "Footprint" in >>impl */
    cres_resolver probe, *r = NULL; /* probe only reads the environment through the config */
    const char *backend, *switch_name;
    char selector[320], left_out[160], why[320];
    int alone = 0; /* no step applies: cres__auto_not_alone has the last word */
    cres_result res;
    selector[0] = '\0'; /* an initializer would clear all 320 bytes, in code */
    strcpy(why, "forced by options.backend");
    if (!o) o = &none;
    cres__clear(err);
    if (!out) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "auto: out is NULL");
    *out = NULL;
    memset(&probe, 0, sizeof probe);
    if (o->config) probe.config = *o->config;
    backend = o->backend;
    if (!backend || strcmp(backend, "auto") == 0) {
        backend = cres_resolver_getenv(&probe, "CLUSTER_RESOLVER_BACKEND");
        strcpy(why, "forced by CLUSTER_RESOLVER_BACKEND");
        if (!backend || !*backend || strcmp(backend, "auto") == 0)
            backend = cres__auto_detect(&probe, selector, sizeof selector, why, sizeof why);
        if (!backend) { /* one task here, unless a launcher's variable says otherwise */
            backend = "local";
            strcpy(why, "no launcher or cluster variables");
            alone = 1;
        }
    }
    if (strcmp(backend, "off") == 0) backend = "local"; /* forced by either */
    /* An environment whose backend is left out must not pass for a one-task local job. */
    if ((switch_name = cres__left_out(backend)) != NULL)
        return cres__fail(err, CRES_ERR_UNSUPPORTED,
                          "auto: the %s backend (%s) is left out of this build by "
                          "CLUSTER_RESOLVER_NO_%s",
                          backend, why, switch_name);
    if (alone && (res = cres__auto_not_alone(&probe, err)) != CRES_OK) return res;
#ifndef CLUSTER_RESOLVER_NO_K8S /* else left out above */
    if (strcmp(backend, "kubernetes") == 0 && *selector) { /* what auto made of the pod */
        size_t used = strlen(why); /* a long selector is cut short: why is only for the log */
        const char *members = "named from the Job, else listed";
#  ifdef CLUSTER_RESOLVER_NO_K8S_JOB
        members = "listed (CLUSTER_RESOLVER_NO_K8S_JOB)";
#  endif
        if (o->k8s_members == CRES_K8S_MEMBERS_LIST) members = "listed";
        if (snprintf(why + used, sizeof why - used,
                     "; job \"worker\" = %s, or the whole JobSet when the own pod is in one; "
                     "members %s",
                     selector, members) < 0)
            why[used] = '\0';
    }
#endif
    res = cres__auto_create(backend, o, selector, why, &probe, &r, err);
    if (res == CRES_OK) res = cres__apply_options(r, o->task_type, o->task_id, o->rpc_layer, err);
    if (res != CRES_OK) {
        cres_resolver_free(r);
        return res;
    }
    cres__log(r, CRES_LOG_INFO, "auto: using the %s backend: %s%s", r->vtable->name, why,
              cres__left_out_list(left_out, sizeof left_out));
    *out = r;
    return CRES_OK;
}
#else
CRES__LEFT_OUT(cres_auto_resolver_create, cres_auto_options, "auto", "CLUSTER_RESOLVER_NO_AUTO")
#endif /* CLUSTER_RESOLVER_NO_AUTO */

/* ////////////////////////////////////////////////////////////////////////////////////////
   Launcher output                                                                 >>launch */

/* Job order for global ranks: "chief" first, then the rest by name, "evaluator" last: TF runs
   its evaluator outside the cluster, so it takes no rank (cres__ranked_jobs leaves it out). */
CRES__PRIVATE size_t cres__rank_job(const cres_cluster_spec *s, size_t i) {
    int chief, eval;
    size_t c = cres__find_job(s, "chief", &chief), e = cres__find_job(s, "evaluator", &eval);
    size_t first = c < e ? c : e, second = c < e ? e : c;
    if (chief && i-- == 0) return c;
    if (eval && i == s->count - (size_t)chief - 1) return e;
    if (!chief) first = second = e;      /* only the evaluator is left out of the others */
    else if (!eval) first = second = c;
    if ((chief || eval) && i >= first) i++; /* the others, in name order, around those two */
    if (chief && eval && i >= second) i++;
    return i;
}

/* The jobs that take ranks: all but an evaluator. */
CRES__PRIVATE size_t cres__ranked_jobs(const cres_cluster_spec *s) {
    int eval;
    cres__find_job(s, "evaluator", &eval);
    return s->count - (size_t)eval;
}

typedef struct cres__host_slot {
    const char *host;
    size_t len;
    size_t first; /* rank of its first task */
    size_t slots;
} cres__host_slot;

CRES__PRIVATE int cres__cmp_host(const void *a, const void *b) {
    const cres__host_slot *x = (const cres__host_slot *)a, *y = (const cres__host_slot *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->host, y->host, n);
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

CRES__PRIVATE int cres__cmp_first(const void *a, const void *b) {
    const cres__host_slot *x = (const cres__host_slot *)a, *y = (const cres__host_slot *)b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The spec's hosts (the host part of each address) in rank order, each once, with its
   first rank and its number of tasks; *out (freed by the caller with the spec's allocator)
   has *count entries. */
CRES__PRIVATE cres_result cres__spec_hosts(const cres_cluster_spec *s, const char *what,
                                           cres__host_slot **out, size_t *count,
                                           cres_error *err) {
    cres__host_slot *hosts;
    size_t i, k, n = 0, total = 0, groups = 0;
    int port;
    char q[CRES__QUOTE_SIZE];
    for (i = 0; i < s->count; i++) total += s->jobs[i].pub.tasks_count;
    hosts = (cres__host_slot *)cres__alloc(&s->alloc, (total ? total : 1) * sizeof *hosts);
    if (!hosts) return cres__oom(err, what);
    for (i = 0; i < cres__ranked_jobs(s); i++) {
        const cres_job *j = &s->jobs[cres__rank_job(s, i)].pub;
        for (k = 0; k < j->tasks_count; k++, n++) {
            const char *a = j->tasks[k].address;
            hosts[n].first = n;
            hosts[n].slots = 1;
            if (!cres__split_address(a, &hosts[n].host, &hosts[n].len, &port)) {
                cres__free(&s->alloc, hosts);
                return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "%s: cannot read address %s",
                                  what, cres__quote_str(q, sizeof q, a));
            }
        }
    }
    /* Group equal hosts (sorted by name, then first rank), then restore rank order. */
    if (n) qsort(hosts, n, sizeof *hosts, cres__cmp_host);
    for (i = 0; i < n; i++) {
        if (groups && hosts[groups - 1].len == hosts[i].len &&
            memcmp(hosts[groups - 1].host, hosts[i].host, hosts[i].len) == 0) {
            hosts[groups - 1].slots++;
        } else {
            hosts[groups++] = hosts[i];
        }
    }
    if (groups) qsort(hosts, groups, sizeof *hosts, cres__cmp_first);
    *out = hosts;
    *count = groups;
    return CRES_OK;
}

/* num_nodes, and node_rank when the own host is known. */
CRES__PRIVATE cres_result cres__launch_nodes(const cres_cluster_spec *s, const char *own_host,
                                             size_t own_len, cres_launch_info *out,
                                             cres_error *err) {
    cres__host_slot *hosts;
    size_t i, n;
    cres_result res = cres__spec_hosts(s, "launch info", &hosts, &n, err);
    if (res != CRES_OK) return res;
    out->num_nodes = (int)n;
    for (i = 0; own_host && i < n; i++)
        if (hosts[i].len == own_len && memcmp(hosts[i].host, own_host, own_len) == 0)
            out->node_rank = (int)i;
    cres__free(&s->alloc, hosts);
    return CRES_OK;
}

CRES_API cres_result cres_spec_launch_info(const cres_cluster_spec *s, const char *task_type,
                                           int task_id, cres_launch_info *out, cres_error *err) {
    size_t i, k;
    int rank = 0;
    const char *own = NULL, *host, *own_host = NULL, *master = NULL;
    size_t host_len, own_len = 0;
    int port;
    char q[CRES__QUOTE_SIZE];
    cres__clear(err);
    if (!s || !out)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "launch info: spec or out is NULL");
    if (task_type && task_id < 0) /* a spec has no own task */
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "launch info: task id %d is negative",
                          task_id);
    memset(out, 0, sizeof *out);
    out->rank = out->local_rank = out->local_world_size = out->node_rank = CRES_UNKNOWN;
    out->master_port = CRES_UNKNOWN;
    if (task_type) {
        own = cres_spec_task_address(s, task_type, task_id);
        if (!own)
            return cres__fail(err, CRES_ERR_NOT_FOUND,
                              "launch info: task %s %d is not in the cluster",
                              cres__quote_str(q, sizeof q, task_type), task_id);
        if (!cres__split_address(own, &own_host, &own_len, &port))
            return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "launch info: cannot read address %s",
                              cres__quote_str(q, sizeof q, own));
        if (strcmp(task_type, "evaluator") == 0)
            return cres__fail(err, CRES_ERR_NOT_FOUND,
                              "launch info: task \"evaluator\" %d has no rank: TensorFlow runs "
                              "its evaluator outside the cluster",
                              task_id);
        out->local_rank = 0;
        out->local_world_size = 0;
    }
    for (i = 0; i < cres__ranked_jobs(s); i++) {
        const cres_job *j = &s->jobs[cres__rank_job(s, i)].pub;
        for (k = 0; k < j->tasks_count; k++, rank++) {
            const cres_task *t = &j->tasks[k];
            if (rank == INT_MAX)
                return cres__fail(err, CRES_ERR_LIMIT, "launch info: more than %d tasks", INT_MAX);
            if (!master) master = t->address;
            if (own && t->address == own) out->rank = rank;
            if (!own) continue;
            if (!cres__split_address(t->address, &host, &host_len, &port))
                return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                                  "launch info: cannot read address %s",
                                  cres__quote_str(q, sizeof q, t->address));
            if (host_len == own_len && memcmp(host, own_host, host_len) == 0) {
                if (out->rank < 0) out->local_rank++;
                out->local_world_size++;
            }
        }
    }
    out->world_size = rank;
    if (master) {
        if (!cres__split_address(master, &host, &host_len, &out->master_port) ||
            host_len >= sizeof out->master_host || strlen(master) >= sizeof out->master_address)
            return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                              "launch info: cannot read the master's address %s",
                              cres__quote_str(q, sizeof q, master));
        memcpy(out->master_host, host, host_len);
        out->master_host[host_len] = '\0';
        strcpy(out->master_address, master);
    }
    return cres__launch_nodes(s, own_host, own_len, out, err);
}

/* "host slots=N" (Open MPI) or "host:N" (MPICH) lines, a host per line in rank order. */
CRES__PRIVATE cres_result cres__write_hosts(const cres_cluster_spec *s, const char *what,
                                            const char *separator, char *buf, size_t cap,
                                            size_t *out_len, cres_error *err) {
    cres__host_slot *hosts;
    size_t i, n;
    cres__writer w;
    cres_result res;
    char q[CRES__QUOTE_SIZE];
    cres__clear(err);
    if (!s) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "%s: spec is NULL", what);
    if ((res = cres__start(&w, buf, cap, err)) != CRES_OK ||
        (res = cres__spec_hosts(s, what, &hosts, &n, err)) != CRES_OK)
        return res;
    for (i = 0; i < n; i++) {
        if (*separator == ':' && memchr(hosts[i].host, ':', hosts[i].len)) {
            cres__quote(q, sizeof q, hosts[i].host, hosts[i].len);
            cres__free(&s->alloc, hosts);
            return cres__fail(err, CRES_ERR_UNSUPPORTED,
                              "%s: host %s is an IPv6 address, which \"host:N\" lines cannot "
                              "hold; write a hostfile instead",
                              what, q);
        }
        cres__put(&w, hosts[i].host, hosts[i].len);
        cres__puts(&w, separator);
        cres__put_int(&w, (long long)hosts[i].slots);
        cres__put_char(&w, '\n');
    }
    cres__free(&s->alloc, hosts);
    return cres__finish(&w, out_len, err);
}

CRES_API cres_result cres_spec_to_hostfile(const cres_cluster_spec *s, char *buf, size_t cap,
                                           size_t *out_len, cres_error *err) {
    return cres__write_hosts(s, "hostfile", " slots=", buf, cap, out_len, err);
}

CRES_API cres_result cres_spec_to_machinefile(const cres_cluster_spec *s, char *buf, size_t cap,
                                              size_t *out_len, cres_error *err) {
    return cres__write_hosts(s, "machinefile", ":", buf, cap, out_len, err);
}

CRES_API cres_result cres_spec_to_tfconfig(const cres_cluster_spec *s, const char *task_type,
                                           int task_id, const char *rpc_layer,
                                           const char *environment, char *buf, size_t cap,
                                           size_t *out_len, cres_error *err) {
    cres__writer w;
    cres_result res;
    cres__clear(err);
    if (!s) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "TF_CONFIG output: spec is NULL");
    if (task_type && task_id < 0)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT,
                          "TF_CONFIG output: task id %d is negative", task_id);
    if ((res = cres__start(&w, buf, cap, err)) != CRES_OK) return res;
    cres__puts(&w, "{\"cluster\": ");
    cres__spec_write_json(s, &w);
    if (task_type) {
        cres__puts(&w, ", \"task\": {\"type\": ");
        cres__put_json_string(&w, task_type);
        cres__puts(&w, ", \"index\": ");
        cres__put_int(&w, task_id);
        cres__puts(&w, "}");
    }
    cres__puts(&w, ", \"rpc_layer\": ");
    cres__put_json_string(&w, rpc_layer ? rpc_layer : "");
    cres__puts(&w, ", \"environment\": ");
    cres__put_json_string(&w, environment ? environment : "");
    cres__puts(&w, "}");
    return cres__finish(&w, out_len, err);
}



/* The sizes and ranks a launcher's variables give, and where they go in the launch info. */
static const struct cres__launch_var {
    char name[20];
    unsigned char jax; /* JAX_*: the jax backend's own variables */
    unsigned char offset;
} cres__launch_vars[] = {
    {"WORLD_SIZE", 0, offsetof(cres_launch_info, world_size)},
    {"RANK", 0, offsetof(cres_launch_info, rank)},
    {"LOCAL_RANK", 0, offsetof(cres_launch_info, local_rank)},
    {"LOCAL_WORLD_SIZE", 0, offsetof(cres_launch_info, local_world_size)},
    {"GROUP_RANK", 0, offsetof(cres_launch_info, node_rank)},
    {"NODE_RANK", 0, offsetof(cres_launch_info, node_rank)},
    {"GROUP_WORLD_SIZE", 0, offsetof(cres_launch_info, num_nodes)},
    {"JAX_NUM_PROCESSES", 1, offsetof(cres_launch_info, world_size)},
    {"JAX_PROCESS_ID", 1, offsetof(cres_launch_info, rank)},
};

/* The coordinator the environment names: MASTER_ADDR and MASTER_PORT (either may be alone),
   else JAX_COORDINATOR_ADDRESS ("host:port", "[v6]:port"); both kinds set must agree. */
CRES__PRIVATE cres_result cres__launch_env_master(const cres_resolver *r, int jax,
                                                  cres_launch_info *info, cres_error *err) {
    const char *addr = cres_resolver_getenv(r, "MASTER_ADDR");
    const char *port = cres_resolver_getenv(r, "MASTER_PORT");
    const char *coord = jax ? NULL : cres_resolver_getenv(r, "JAX_COORDINATOR_ADDRESS"), *host;
    char q[CRES__QUOTE_SIZE], q2[CRES__QUOTE_SIZE];
    long long p = info->master_port;
    size_t len;
    int coord_port = -1, torch = 0;
    cres__writer w;
    if (addr && !cres__is_blank(addr)) {
        len = strlen(addr);
        host = addr;
        if (len > 1 && addr[0] == '[' && addr[len - 1] == ']') host++, len -= 2;
        if (len >= sizeof info->master_host || memchr(host, ' ', len))
            return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: MASTER_ADDR=%s is not a host",
                              r->vtable->name, cres__quote_str(q, sizeof q, addr));
        memcpy(info->master_host, host, len);
        info->master_host[len] = '\0';
        torch = 1;
    }
    if (port && !cres__is_blank(port)) {
        if (cres__parse_decimal(port, strlen(port), &p) != 1 || p < 1 || p > 65535)
            return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: MASTER_PORT=%s is not a port",
                              r->vtable->name, cres__quote_str(q, sizeof q, port));
        info->master_port = (int)p;
        torch = 1;
    }
    if (coord && !cres__is_blank(coord)) {
        if (!cres__split_address(coord, &host, &len, &coord_port) || !len ||
            len >= sizeof info->master_host)
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "%s: JAX_COORDINATOR_ADDRESS=%s is not host:port", r->vtable->name,
                              cres__quote_str(q, sizeof q, coord));
        if (torch && (strlen(info->master_host) != len ||
                      memcmp(info->master_host, host, len) != 0 ||
                      (coord_port >= 0 && coord_port != info->master_port)))
            return cres__fail(
                err, CRES_ERR_ENVIRONMENT,
                "%s: JAX_COORDINATOR_ADDRESS=%s and MASTER_ADDR/MASTER_PORT (%s:%d) "
                "name two coordinators",
                r->vtable->name, cres__quote_str(q, sizeof q, coord),
                cres__quote(q2, sizeof q2, info->master_host, strlen(info->master_host)),
                info->master_port);
        memcpy(info->master_host, host, len);
        info->master_host[len] = '\0';
        if (coord_port >= 0) info->master_port = coord_port;
    } else if (!torch) {
        return CRES_OK;
    }
    cres__start(&w, info->master_address, sizeof info->master_address, NULL);
    if (info->master_port < 0) cres__puts(&w, info->master_host);
    else if (!cres__put_host_port(&w, info->master_host, info->master_port))
        return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s=%s is not a host name or IP address",
                          r->vtable->name, torch ? "MASTER_ADDR" : "JAX_COORDINATOR_ADDRESS",
                          cres__quote_str(q, sizeof q, info->master_host));
    cres__finish(&w, NULL, NULL);
    cres__log(r, CRES_LOG_INFO, "%s: the coordinator %s is the environment's (%s), kept",
              r->vtable->name, info->master_address,
              torch ? "MASTER_ADDR, MASTER_PORT" : "JAX_COORDINATOR_ADDRESS");
    return CRES_OK;
}

CRES_API cres_result cres_launch_apply_env(const cres_resolver *r, cres_launch_info *info,
                                           cres_error *err) {
    size_t i;
    int jax;
    char q[CRES__QUOTE_SIZE];
    cres__clear(err);
    if (!r || !info)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "launch: resolver or info is NULL");
    /* torch's own variables; local is the way to run alone whatever the environment says */
    if (strcmp(r->vtable->name, "torch") == 0 || strcmp(r->vtable->name, "local") == 0)
        return CRES_OK;
    jax = strcmp(r->vtable->name, "jax") == 0;
    for (i = 0; i < sizeof cres__launch_vars / sizeof cres__launch_vars[0]; i++) {
        const struct cres__launch_var *v = &cres__launch_vars[i];
        const char *text = cres_resolver_getenv(r, v->name);
        int *field = (int *)(void *)((char *)info + v->offset);
        long long n;
        if (!text || cres__is_blank(text) || (jax && v->jax)) continue;
        if (cres__parse_decimal(text, strlen(text), &n) != 1 || n < 0 || n > INT_MAX)
            return cres__fail(err, CRES_ERR_ENVIRONMENT, "%s: %s=%s is not a count or rank",
                              r->vtable->name, v->name, cres__quote_str(q, sizeof q, text));
        if (*field != CRES_UNKNOWN && n != *field)
            return cres__fail(err, CRES_ERR_ENVIRONMENT,
                              "%s: %s=%s is set, but the %s backend's answer is %d: they "
                              "describe two launches (unset it, or set "
                              "CLUSTER_RESOLVER_BACKEND=%s if a launcher inside set it)",
                              r->vtable->name, v->name, cres__quote_str(q, sizeof q, text),
                              r->vtable->name, *field, v->jax ? "jax" : "torch");
    }
    return cres__launch_env_master(r, jax, info, err);
}

CRES_API cres_result cres_launch(cres_resolver *r, cres_launch_info *out, cres_error *err) {
    cres_result res;
    cres__clear(err);
    if (!r || !out)
        return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "launch: %s is NULL",
                          r ? "out" : "resolver");
    res = r->vtable->launch ? r->vtable->launch(r, out, err) : cres__launch_from_spec(r, out, err);
    return res == CRES_OK ? cres_launch_apply_env(r, out, err) : res;
}

CRES_API cres_result cres_tfconfig(cres_resolver *r, char *buf, size_t cap, size_t *out_len,
                                   cres_error *err) {
    cres_cluster_spec *spec = NULL;
    cres_result res;
    cres__clear(err);
    if (!r) return cres__fail(err, CRES_ERR_INVALID_ARGUMENT, "TF_CONFIG output: resolver is NULL");
    if ((res = cres_resolve(r, &spec, err)) == CRES_OK)
        res = cres_spec_to_tfconfig(spec, r->task_id >= 0 ? r->task_type : NULL, r->task_id,
                                    r->rpc_layer, r->environment, buf, cap, out_len, err);
    cres_spec_free(spec);
    return res;
}

#endif /* CLUSTER_RESOLVER_IMPLEMENTATION */

/*
------------------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the cluster_resolver.h authors
Permission is hereby granted, free of charge, to any person obtaining a copy of this
software and associated documentation files (the "Software"), to deal in the Software
without restriction, including without limitation the rights to use, copy, modify, merge,
publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons
to whom the Software is furnished to do so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,
INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR
PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE
FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this software,
either in source code form or as a compiled binary, for any purpose, commercial or
non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this software
dedicate any and all copyright interest in the software to the public domain. We make this
dedication for the benefit of the public at large and to the detriment of our heirs and
successors. We intend this dedication to be an overt act of relinquishment in perpetuity
of all present and future rights to this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,
INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR
PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES
OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT
OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------------------
*/
