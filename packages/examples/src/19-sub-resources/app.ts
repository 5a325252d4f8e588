/**
 * Example 19, sub-resource locators (Jakarta REST 3.1 §3.4.1): a method with `@Path` and no HTTP
 * method returns the object that handles the rest of the path.
 *
 *   curl localhost:3000/projects/apollo                       → Project.info
 *   curl localhost:3000/projects/apollo/tasks/2               → Task.get (two locators deep)
 *   curl -X PUT -H 'content-type: application/json' -d '{"done":true}' localhost:3000/projects/apollo/tasks/2
 *   curl -i localhost:3000/projects/nope                      → 404 (the locator returned undefined)
 *   curl -i -X DELETE localhost:3000/projects/apollo/tasks/2  → 405, Allow: GET, HEAD, OPTIONS, PUT
 *   curl localhost:3000/projects/apollo/summary               → Project.summary (a method beats the locator)
 *   curl -i localhost:3000/projects/apollo/tasks/1            → X-Project-Audit: apollo (bound to Projects)
 *
 * The sub-resource classes are plain classes: their own `@Path` would be ignored; the locator's
 * template (`{project}`) and theirs (`tasks/{id}`) join, and every path parameter stays readable.
 */
import {
  Application,
  Entity,
  GET,
  NameBinding,
  Path,
  PathParam,
  PUT,
  type ContainerRequestContext,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';

interface TaskData {
  title: string;
  done: boolean;
}

const PROJECTS = new Map<string, TaskData[]>([
  [
    'apollo',
    [
      { title: 'launch', done: false },
      { title: 'land', done: false },
    ],
  ],
  ['gemini', [{ title: 'dock', done: true }]],
]);

/** Bound to the root resource: it also runs for every method reached through its locators. */
export const Audited = NameBinding('Audited');

@Audited()
export class AuditFilter implements ContainerResponseFilter {
  filterResponse(request: ContainerRequestContext, response: ContainerResponseContext): void {
    const project = request.pathParam('project');
    if (project !== undefined) response.setHeader('x-project-audit', project);
  }
}

export class Task {
  constructor(
    private readonly project: string,
    private readonly index: number,
    private readonly data: TaskData,
  ) {}

  @GET() get(): object {
    return { project: this.project, id: this.index + 1, ...this.data };
  }

  @PUT() update(@Entity() patch: { done?: boolean; title?: string }): object {
    if (typeof patch.done === 'boolean') this.data.done = patch.done;
    if (typeof patch.title === 'string') this.data.title = patch.title;
    return this.get();
  }
}

export class Project {
  constructor(
    private readonly name: string,
    private readonly tasks: TaskData[],
  ) {}

  @GET() info(): object {
    return { name: this.name, tasks: this.tasks.length };
  }

  @GET() @Path('summary') summary(): string {
    const done = this.tasks.filter((t) => t.done).length;
    return `${this.name}: ${done}/${this.tasks.length} done`;
  }

  /** Second locator: a Task, or undefined (404) for an unknown number. */
  @Path('tasks/{id}') task(@PathParam('id') id: number): Task | undefined {
    const data = this.tasks[id - 1];
    return data === undefined ? undefined : new Task(this.name, id - 1, data);
  }
}

@Audited()
@Path('/projects')
export class Projects {
  @GET() list(): string[] {
    return [...PROJECTS.keys()];
  }

  /** First locator: matching continues in the Project it returns. */
  @Path('{project}') project(@PathParam('project') name: string): Project | undefined {
    const tasks = PROJECTS.get(name);
    return tasks === undefined ? undefined : new Project(name, tasks);
  }
}

export function createApp(): Application {
  return new Application({ resources: [Projects], providers: [AuditFilter] });
}
