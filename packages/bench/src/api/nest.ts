/**
 * The write-path workloads on NestJS 11 (see model.ts), idiomatic: a controller, a DTO class with
 * class-validator decorators checked by the global `ValidationPipe` (every violation listed, a
 * string age refused: no implicit conversion), on Fastify (`NEST_ADAPTER=fastify`, the default) or
 * Express (`NEST_ADAPTER=express`, its automatic ETag off). The pipe's errors become the same 400 body as the
 * hand-written server's (`errors: [{ field, message }]`).
 */
import 'reflect-metadata';
import { BadRequestException, Body, Controller, Get, Headers, Module, Param, Post, Res, ValidationPipe } from '@nestjs/common';
import type { ValidationError } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { IsEmail, IsInt, IsString, Length, Matches, Max, Min } from 'class-validator';
import { announce, exitOnSignal, portFromEnv } from '../common.js';
import {
  AGE,
  createUser,
  etagOf,
  FIRST_NAME,
  LAST_NAME,
  listedUser,
  listUsers,
  locationOf,
  violationBody,
  type CreatedUser,
  type ListedUser,
  type UserInput,
} from './model.js';

/** The validated create's body (a missing field fails its checks, so every field is required). */
class CreateUserDto {
  @IsEmail() email!: string;
  @IsString() @Length(FIRST_NAME.min, FIRST_NAME.max) firstName!: string;
  @IsString() @Length(LAST_NAME.min, LAST_NAME.max) @Matches(/\S/, { message: 'lastName must not be blank' }) lastName!: string;
  @IsInt() @Min(AGE.min) @Max(AGE.max) age!: number;
}

/** What both adapters' replies offer (Express's `res` and Fastify's `reply`). */
interface Reply {
  status(code: number): unknown;
  header(name: string, value: string): unknown;
}

@Controller('api/users')
class UsersController {
  @Post()
  create(@Body() input: CreateUserDto, @Headers('host') host: string | undefined, @Res({ passthrough: true }) res: Reply): CreatedUser {
    const user = createUser(input);
    res.header('location', locationOf(host, user.id));
    return user;
  }

  /** No DTO class: the ValidationPipe has nothing to check on a plain object type. */
  @Post('unchecked')
  createUnchecked(
    @Body() input: Record<string, unknown>,
    @Headers('host') host: string | undefined,
    @Res({ passthrough: true }) res: Reply,
  ): CreatedUser {
    const user = createUser(input as unknown as UserInput);
    res.header('location', locationOf(host, user.id));
    return user;
  }

  @Get()
  list(): ListedUser[] {
    return listUsers();
  }

  @Get(':id')
  get(
    @Param('id') raw: string,
    @Headers('if-none-match') inm: string | undefined,
    @Res({ passthrough: true }) res: Reply,
  ): ListedUser | undefined {
    const id = Number(raw);
    const tag = etagOf(id);
    res.header('etag', tag);
    if (inm !== undefined && (inm === tag || inm === `W/${tag}` || inm === '*')) {
      res.status(304);
      return undefined;
    }
    return listedUser(id);
  }
}

@Module({ controllers: [UsersController] })
class AppModule {}

/** class-validator's errors as the shared 400 body, one entry per failed constraint. */
function exceptionFactory(errors: ValidationError[]): BadRequestException {
  const violations = errors.flatMap((e) => Object.values(e.constraints ?? {}).map((message) => ({ field: `body.${e.property}`, message })));
  return new BadRequestException(violationBody(violations));
}

const adapter = process.env.NEST_ADAPTER ?? 'fastify';
if (adapter !== 'fastify' && adapter !== 'express') throw new Error(`NEST_ADAPTER must be fastify or express, got ${adapter}`);
const app =
  adapter === 'fastify'
    ? await NestFactory.create(AppModule, new FastifyAdapter(), { logger: false })
    : await NestFactory.create<NestExpressApplication>(AppModule, { logger: false });
// Express tags every answer with a weak SHA-1 ETag by default: off, so every peer answers the same
// headers (the conditional GET's tag is the controller's own).
if (adapter === 'express') (app as NestExpressApplication).set('etag', false);
app.useGlobalPipes(new ValidationPipe({ exceptionFactory }));
await app.listen(portFromEnv(), '127.0.0.1');
const address = app.getHttpServer().address() as { port: number };
announce(address.port);
exitOnSignal(() => void app.close());
